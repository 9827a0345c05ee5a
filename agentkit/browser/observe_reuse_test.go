package browser

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/trapline/trapline/agentkit/action"
	"github.com/trapline/trapline/agentkit/evidence"
	"github.com/trapline/trapline/agentkit/observe"
)

// TestObserveReusesTheUnchangedPage: after a step that drove nothing (a denied proposal), Observe
// returns the last observation again while the page provably did not change, and reads the page anew
// after every change the counter sees, every navigation and every dispatch, even one that changed
// nothing (a hover). A reuse that missed one of these would show the planner a page that is gone.
func TestObserveReusesTheUnchangedPage(t *testing.T) {
	sess, _, _, _ := portalSession(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		switch r.URL.Path {
		case "/pratiche/conframe":
			fmt.Fprint(w, `<!doctype html><title>Con frame</title><p>frame</p><iframe src="/pratiche"></iframe>`)
		default:
			fmt.Fprint(w, `<!doctype html><title>Pratica</title><h1>Pratica</h1>
<label>Nota <input id=nota></label><button id=save>Salva</button><p id=out>idle</p>`)
		}
	}))
	ctx := context.Background()
	observeT := func(t *testing.T) *observe.Observation {
		t.Helper()
		obs, err := sess.Observe(ctx)
		if err != nil {
			t.Fatal(err)
		}
		return obs
	}
	if res := sess.Goto(ctx, "http://portale.interno.test/pratiche/4"); res.Err != nil {
		t.Fatal(res.Err)
	}
	last := observeT(t)
	// again: nothing happened, the same observation
	again := func(t *testing.T, why string) {
		t.Helper()
		before := sess.ReusedObservations()
		obs := observeT(t)
		if obs.SnapshotID != last.SnapshotID || sess.ReusedObservations() != before+1 {
			t.Fatalf("%s: snapshot %s (reused %d times), want %s again", why, obs.SnapshotID, sess.ReusedObservations()-before, last.SnapshotID)
		}
	}
	// fresh: something happened, a new observation
	fresh := func(t *testing.T, why string) {
		t.Helper()
		before := sess.ReusedObservations()
		obs := observeT(t)
		if obs.SnapshotID == last.SnapshotID || sess.ReusedObservations() != before {
			t.Fatalf("%s: the page was not read again (snapshot %s)", why, obs.SnapshotID)
		}
		last = obs
	}
	again(t, "nothing dispatched, nothing changed")
	again(t, "still nothing")
	for _, c := range []struct{ why, script string }{
		{"a DOM write", `() => { document.getElementById('out').textContent = 'salvato'; }`},
		{"a script's write to a form value (no DOM mutation)", `() => { document.getElementById('nota').value = 'scritto'; }`},
		{"a reload of the same URL", `() => { location.reload(); }`},
	} {
		since := sess.navigationEvents()
		if _, err := sess.Page().Evaluate(c.script); err != nil {
			t.Fatalf("%s: %v", c.why, err)
		}
		if strings.Contains(c.script, "reload") {
			if err := sess.WaitNavigated(ctx, since, 0); err != nil {
				t.Fatal(err)
			}
		}
		fresh(t, c.why)
		again(t, "nothing after "+c.why)
	}
	n, err := last.Find("button", "Salva")
	if err != nil {
		t.Fatal(err)
	}
	res := sess.Act(ctx, last, action.Action{Kind: action.Hover, Ref: n.Ref}, n)
	if res.Err != nil || res.After == nil {
		t.Fatalf("hover: %+v", res)
	}
	// the dispatch's own verification read the page anew, after it; that read is the page now
	if res.After.SnapshotID == last.SnapshotID {
		t.Fatalf("a dispatch that changed nothing (hover): its verification reused snapshot %s", last.SnapshotID)
	}
	last = res.After
	again(t, "nothing after the hover's verification")
	if res := sess.Goto(ctx, "http://portale.interno.test/pratiche/4"); res.Err != nil {
		t.Fatal(res.Err)
	}
	fresh(t, "a goto to the same page")
	// a page with frames: the counter does not cover it, so it is read every time
	if res := sess.Goto(ctx, "http://portale.interno.test/pratiche/conframe"); res.Err != nil {
		t.Fatal(res.Err)
	}
	fresh(t, "a page with a frame")
	fresh(t, "a page with a frame, read again")
}

// TestObserveRereadUnchanged: the A/B switch reads the page every time.
func TestObserveRereadUnchanged(t *testing.T) {
	needChromium(t)
	pol, px := portalProxy(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, `<!doctype html><title>Pratica</title><button>Salva</button>`)
	}))
	rec, err := evidence.Open(t.TempDir(), evidence.NewRedactor())
	if err != nil {
		t.Fatal(err)
	}
	sess, err := sharedBrowser(t).NewSession(SessionOptions{ProxyURL: px.URL(), Policy: pol, Recorder: rec, RereadUnchanged: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = sess.Close() })
	ctx := context.Background()
	if res := sess.Goto(ctx, "http://portale.interno.test/pratiche/4"); res.Err != nil {
		t.Fatal(res.Err)
	}
	a, err := sess.Observe(ctx)
	if err != nil {
		t.Fatal(err)
	}
	b, err := sess.Observe(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if a.SnapshotID == b.SnapshotID || sess.ReusedObservations() != 0 {
		t.Fatalf("RereadUnchanged: snapshots %s and %s, %d reused; want two reads", a.SnapshotID, b.SnapshotID, sess.ReusedObservations())
	}
}
