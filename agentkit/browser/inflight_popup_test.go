package browser

import (
	"context"
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/trapline/trapline/agentkit/action"
)

// TestClosedPopupLeavesNothingInFlight: a popup the popup guard closes while its stylesheet is still
// loading leaves no request counted in flight. Chromium sends neither "finished" nor "failed" for a
// closed page's requests; before trackInflight forgot them, every later settle of the session waited
// its whole bound (settleMax) for a request that could never end.
func TestClosedPopupLeavesNothingInFlight(t *testing.T) {
	release := make(chan struct{})
	t.Cleanup(func() { close(release) })
	mux := http.NewServeMux()
	mux.HandleFunc("GET /pratiche/6/stampa", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, `<!doctype html><title>Stampa</title><a href="/pratiche/6/versione-stampabile" target="_blank">Versione stampabile</a>`)
	})
	mux.HandleFunc("GET /pratiche/6/versione-stampabile", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, `<!doctype html><title>Versione stampabile</title><link rel=stylesheet href="/stampa.css"><p>Pratica 6`)
	})
	mux.HandleFunc("GET /stampa.css", func(w http.ResponseWriter, r *http.Request) {
		select { // the popup's stylesheet never arrives while the test runs
		case <-release:
		case <-r.Context().Done():
		}
	})
	sess, _, _, _ := portalSession(t, mux)
	ctx := context.Background()
	if res := sess.Goto(ctx, "http://portale.interno.test/pratiche/6/stampa"); res.Err != nil {
		t.Fatal(res.Err)
	}
	obs, err := sess.Observe(ctx)
	if err != nil {
		t.Fatal(err)
	}
	link, ok := find(obs, "link", "Versione stampabile")
	if !ok {
		t.Fatalf("no link in\n%s", obs.Raw)
	}
	res := sess.Act(ctx, obs, action.Action{Kind: action.Click, Ref: link.Ref}, link)
	if res.Err != nil {
		t.Fatalf("click: %+v", res)
	}
	deadline := time.Now().Add(5 * time.Second)
	for sess.inflight.Load() != 0 {
		if time.Now().After(deadline) {
			t.Fatalf("%d request(s) still counted in flight 5 s after the popup was closed", sess.inflight.Load())
		}
		time.Sleep(20 * time.Millisecond) // polling a counter the driver's events keep
	}
}
