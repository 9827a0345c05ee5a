package browser

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/trapline/trapline/agentkit"
	"github.com/trapline/trapline/agentkit/act"
	"github.com/trapline/trapline/agentkit/action"
	"github.com/trapline/trapline/agentkit/evidence"
	"github.com/trapline/trapline/agentkit/planner"
	"github.com/trapline/trapline/agentkit/policy"
	"github.com/trapline/trapline/proxy"
)

// TestDispatchCoversEveryKind: the dispatch table has exactly one entry per action kind.
func TestDispatchCoversEveryKind(t *testing.T) {
	for _, k := range action.Kinds() {
		if dispatch[k] == nil {
			t.Errorf("no dispatcher for action kind %q", k)
		}
	}
	if len(dispatch) != len(action.Kinds()) {
		t.Errorf("dispatch has %d entries, action.Kinds() %d: a kind outside the closed set", len(dispatch), len(action.Kinds()))
	}
}

// listPlanner proposes its actions in order, then done.
type listPlanner struct {
	mu   sync.Mutex
	next []action.Action
}

func (p *listPlanner) Next(context.Context, planner.Input) (action.Action, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.next) == 0 {
		return action.Action{Kind: action.Done, Reason: "list finished"}, nil
	}
	a := p.next[0]
	p.next = p.next[1:]
	return a, nil
}

// TestScrollAndPageReadDispatchThroughTheLoop runs scroll and a read without a ref through the
// reference loop on a real page in Chromium: both are dispatched and delivered, none is logged as a
// resolution failure (they used to be STALE_REF "is gone from the page").
func TestScrollAndPageReadDispatchThroughTheLoop(t *testing.T) {
	sess, rec, pol, dir := portalSession(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, `<!doctype html><title>Lunga</title><h1>Pratiche</h1>`+strings.Repeat(`<p>riga</p>`, 300)+`<p>fine</p>`)
	}))

	p := &listPlanner{next: []action.Action{{Kind: action.Scroll, Dir: "down"}, {Kind: action.Read}, {Kind: action.Scroll, Dir: "up"}}}
	ag := &agentkit.Agent{Policy: pol, Planner: p}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	res, err := ag.Run(ctx, sess, rec, agentkit.Task{StartURL: "http://portale.interno.test/pratiche", Goal: "scorri e leggi"})
	if err != nil {
		t.Fatal(err)
	}
	if err := rec.Close(); err != nil {
		t.Fatal(err)
	}
	if res.Outcome != agentkit.Completed || len(res.Violations) != 0 {
		t.Fatalf("run = %s %q, violations %+v; want Completed with none", res.Outcome, res.Reason, res.Violations)
	}
	recs, err := evidence.ReadActions(filepath.Join(dir, evidence.ActionsFile))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range recs {
		if r.Proposal.Kind != action.Done {
			got = append(got, fmt.Sprintf("%s %s %s", r.Proposal.Kind, r.Delivery, r.Verification))
		}
		if r.Proposal.Kind != action.Done && (r.Delivery != act.Delivered || !r.Decision.Allow) {
			t.Errorf("%s: decision %+v, delivery %s (%s), error %q: want allowed and Delivered", r.Proposal, r.Decision, r.Delivery, r.Verification, r.Error)
		}
	}
	if len(got) != 3 {
		t.Fatalf("actions = %q, want scroll, read, scroll", got)
	}
	t.Logf("actions: %q", got)
}

// portalSession starts site behind a proxy that maps portale.interno.test to it under the reference
// policy, and a browser session through that proxy; everything is closed when the test ends (the
// session first). It skips when Chromium is missing (make setup installs it).
func portalSession(t *testing.T, site http.Handler) (*Session, *evidence.Recorder, *policy.Policy, string) {
	t.Helper()
	needChromium(t)
	pol, px := portalProxy(t, site)
	dir := t.TempDir()
	sess, rec := newSession(t, sharedBrowser(t), px, pol, dir)
	t.Cleanup(func() { _ = sess.Close() })
	return sess, rec, pol, dir
}

// portalProxy serves site as portale.interno.test behind a proxy under the reference policy, both
// closed when the test ends.
func portalProxy(t *testing.T, site http.Handler) (*policy.Policy, *proxy.Proxy) {
	t.Helper()
	pol, err := policy.Load(filepath.Join("..", "..", "policies", "reference.yml"))
	if err != nil {
		t.Fatal(err)
	}
	return pol, portalBehind(t, pol, site)
}

// portalBehind serves site as portale.interno.test behind a proxy deciding by rules, both closed
// when the test ends.
func portalBehind(t *testing.T, rules proxy.Rules, site http.Handler) *proxy.Proxy {
	t.Helper()
	srv := httptest.NewServer(site)
	t.Cleanup(srv.Close)
	px, err := proxy.Start(proxy.Config{Rules: rules, Hosts: map[string]string{"portale.interno.test": strings.TrimPrefix(srv.URL, "http://")}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = px.Close() })
	return px
}

// newSession opens a session of b through px under pol, recording into dir; the caller closes it.
func newSession(t *testing.T, b *Browser, px *proxy.Proxy, pol *policy.Policy, dir string) (*Session, *evidence.Recorder) {
	t.Helper()
	rec, err := evidence.Open(dir, evidence.NewRedactor())
	if err != nil {
		t.Fatal(err)
	}
	sess, err := b.NewSession(SessionOptions{ProxyURL: px.URL(), Policy: pol, Recorder: rec})
	if err != nil {
		t.Fatal(err)
	}
	return sess, rec
}
