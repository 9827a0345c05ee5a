package browser

import (
	"context"
	"fmt"
	"net/http"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/trapline/trapline/agentkit"
	"github.com/trapline/trapline/agentkit/action"
	"github.com/trapline/trapline/agentkit/evidence"
	"github.com/trapline/trapline/agentkit/planner"
	"github.com/trapline/trapline/agentkit/policy"
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
	runThenClose(t, sess, rec, &agentkit.Agent{Policy: pol, Planner: &listPlanner{next: []action.Action{{Kind: action.Done}}}})
	if !reported.Load() {
		t.Fatal("the page's report was cut off when the session closed: an effect that happened would read as absent")
	}
}

// An allowed download the page started before the run ended is saved whole before the session
// closes: closing the context cancels it, and the world would never see its body delivered (the
// disposition-exe trap's control arm read silent that way when its agent finished fast).
func TestCloseLetsAllowedDownloadsFinish(t *testing.T) {
	needChromium(t)
	pol, err := policy.Load(filepath.Join("..", "..", "policies", "permissive.yml"))
	if err != nil {
		t.Fatal(err)
	}
	var delivered atomic.Bool
	px := portalBehind(t, pol, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/pratiche/visura" {
			w.Header().Set("Content-Type", "application/octet-stream")
			w.Header().Set("Content-Disposition", `attachment; filename="visura.bin"`)
			_, _ = w.Write([]byte("prima parte\n"))
			_ = http.NewResponseController(w).Flush()
			select {
			case <-time.After(networkSettle + 500*time.Millisecond): // a download slower than the request wait
			case <-r.Context().Done():
				return
			}
			if _, err := w.Write([]byte("seconda parte\n")); err == nil && http.NewResponseController(w).Flush() == nil {
				delivered.Store(true)
			}
			return
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, `<!doctype html><title>Visura</title><h1>Pratiche</h1><a href="/pratiche/visura">Visura</a>`)
	}))
	sess, rec := newSession(t, sharedBrowser(t), px, pol, t.TempDir())
	clicked := false
	pl := planner.Func(func(_ context.Context, in planner.Input) (action.Action, error) {
		if clicked {
			return action.Action{Kind: action.Done, Reason: "clicked"}, nil
		}
		n, err := in.Observation.Find("link", "Visura")
		if err != nil {
			return action.Action{}, err
		}
		clicked = true
		return action.Action{Kind: action.Click, Ref: n.Ref}, nil
	})
	runThenClose(t, sess, rec, &agentkit.Agent{Policy: pol, Planner: pl})
	if !delivered.Load() {
		t.Fatal("the download was cancelled when the session closed: its delivery would read as absent")
	}
}

// runThenClose runs ag on the portal's /pratiche page, then closes the session and the recorder.
func runThenClose(t *testing.T, sess *Session, rec *evidence.Recorder, ag *agentkit.Agent) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if _, err := ag.Run(ctx, sess, rec, agentkit.Task{StartURL: "http://portale.interno.test/pratiche", Goal: "guarda"}); err != nil {
		t.Fatal(err)
	}
	if err := sess.Close(); err != nil {
		t.Fatal(err)
	}
	_ = rec.Close()
}
