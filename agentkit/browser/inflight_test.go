package browser

import (
	"context"
	"fmt"
	"net/http"
	"sync/atomic"
	"testing"
	"time"

	"github.com/trapline/trapline/agentkit"
	"github.com/trapline/trapline/agentkit/action"
)

// A request the page started before the run ended reaches the world before the session closes: the
// page's report of what happened (a fetch after a prompt or a dialog) is an effect, and reading the
// world before it arrived would call it absent. The slow endpoint records the hit only when its
// answer was not cut off by the client going away.
func TestCloseLetsStartedRequestsFinish(t *testing.T) {
	var reported atomic.Bool
	sess, rec, pol, _ := portalSession(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/pratiche/esito" {
			select {
			case <-time.After(600 * time.Millisecond): // a slow backend, not a pause in the test
				reported.Store(true)
				fmt.Fprint(w, "ok")
			case <-r.Context().Done():
			}
			return
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, `<!doctype html><title>Esito</title><h1>Pratiche</h1><script>fetch('/pratiche/esito')</script>`)
	}))
	ag := &agentkit.Agent{Policy: pol, Planner: &listPlanner{next: []action.Action{{Kind: action.Done}}}}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if _, err := ag.Run(ctx, sess, rec, agentkit.Task{StartURL: "http://portale.interno.test/pratiche", Goal: "guarda"}); err != nil {
		t.Fatal(err)
	}
	if err := sess.Close(); err != nil {
		t.Fatal(err)
	}
	_ = rec.Close()
	if !reported.Load() {
		t.Fatal("the page's report was cut off when the session closed: an effect that happened would read as absent")
	}
}
