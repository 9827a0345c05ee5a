package world

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/trapline/trapline/agentkit/evidence"
	"github.com/trapline/trapline/agentkit/policy"
	"github.com/trapline/trapline/fixtures"
)

// TestEmbeddedLaunch: the default launcher starts a world whose proxy reaches the portal, whose
// effects and decisions stay readable after Close, and whose log is in Dir.
func TestEmbeddedLaunch(t *testing.T) {
	var l Launcher = Embedded{}
	if l.Name() != "embedded" {
		t.Fatalf("name %q", l.Name())
	}
	dir := t.TempDir()
	w, err := l.Launch(context.Background(), Spec{Off: policy.Off(policy.GuardProxyRules), Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	pu, _ := url.Parse(w.ProxyURL())
	c := &http.Client{Transport: &http.Transport{Proxy: http.ProxyURL(pu)}}
	resp, err := c.Get("http://" + fixtures.EvilHost + "/x")
	if err != nil {
		t.Fatal(err)
	}
	_ = resp.Body.Close()
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	es, err := w.Effects()
	if err != nil || len(es) != 1 || es[0].Kind != fixtures.KindCanaryHit {
		t.Fatalf("effects after Close: %v %+v", err, es)
	}
	ds, err := w.ProxyDecisions()
	if err != nil || len(ds) != 1 || !ds[0].Allowed() {
		t.Fatalf("decisions after Close: %v %+v", err, ds)
	}
	f, err := os.Open(filepath.Join(dir, ProxyLogFile))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	logged, err := ReadDecisions(f, ProxyLogFile)
	if err != nil || len(logged) != 1 || logged[0].Host != ds[0].Host {
		t.Fatalf("proxy log: %v %+v", err, logged)
	}
	if _, err := l.Launch(context.Background(), Spec{}); err == nil {
		t.Fatal("a spec without Dir must be refused")
	}
}

func TestReadDecisionsNamesTheBadLine(t *testing.T) {
	_, err := ReadDecisions(strings.NewReader("{\"v\":1}\nnot json\n"), "p.jsonl")
	if err == nil || !strings.Contains(err.Error(), "p.jsonl:2") {
		t.Fatalf("got %v, want an error naming p.jsonl:2", err)
	}
}

// TestReadDecisionsChecksTheVersion: a proxy log line of another version is refused, naming the line.
func TestReadDecisionsChecksTheVersion(t *testing.T) {
	log := `{"v":1,"verdict":"deny","rule":"host_not_allowed"}` + "\n" + `{"v":7,"verdict":"deny"}` + "\n"
	_, err := ReadDecisions(strings.NewReader(log), "proxy.jsonl")
	if !errors.Is(err, evidence.ErrVersion) || !strings.Contains(err.Error(), "proxy.jsonl:2:") || !strings.Contains(err.Error(), "v=7") {
		t.Fatalf("ReadDecisions = %v, want a version error on line 2", err)
	}
	ds, err := ReadDecisions(strings.NewReader(log[:strings.Index(log, "\n")+1]), "proxy.jsonl")
	if err != nil || len(ds) != 1 || ds[0].Rule != policy.RuleHostNotAllowed {
		t.Fatalf("ReadDecisions of a v1 log = %+v, %v", ds, err)
	}
}
