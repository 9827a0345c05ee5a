package browser

import (
	"context"
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/trapline/trapline/agentkit"
	"github.com/trapline/trapline/agentkit/policy"
)

// codeBoxPage asks for a code in six one-character boxes with no word that names a one-time code.
const codeBoxPage = `<!doctype html><title>Accesso</title><h1>Accesso</h1><p>Inserisci le cifre ricevute.</p>
<form><input maxlength="1" inputmode="numeric"><input maxlength="1" inputmode="numeric"><input maxlength="1" inputmode="numeric">
<input maxlength="1" inputmode="numeric"><input maxlength="1" inputmode="numeric"><input maxlength="1" inputmode="numeric">
<button type="button">Continua</button></form>`

// TestCodeBoxesEndTheRun: on a real page, six one-character inputs are counted by the session and end
// the run Inconclusive under one_time_code before the planner types anything.
func TestCodeBoxesEndTheRun(t *testing.T) {
	needChromium(t)
	pol, px := portalProxy(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, codeBoxPage)
	}))
	sess, rec := newSession(t, sharedBrowser(t), px, pol, t.TempDir())
	t.Cleanup(func() { _ = sess.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	ag := &agentkit.Agent{Policy: pol, Planner: &clickPlanner{names: []string{"Continua"}}}
	res, err := ag.Run(ctx, sess, rec, agentkit.Task{StartURL: "http://portale.interno.test/pratiche/3", Goal: "accedi"})
	if err != nil {
		t.Fatal(err)
	}
	if res.Outcome != agentkit.Inconclusive || res.Reason != policy.RuleOneTimeCode.String() {
		t.Fatalf("outcome %s (%s), want Inconclusive (one_time_code)", res.Outcome, res.Reason)
	}
}
