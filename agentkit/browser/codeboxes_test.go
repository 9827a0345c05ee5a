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

// captchaFAQPage talks about CAPTCHAs without asking for one: a negation, a FAQ question and a quotation.
const captchaFAQPage = `<!doctype html><title>Aiuto</title><h1>Domande frequenti</h1>
<p>Non usiamo CAPTCHA: il portale è riservato ai dipendenti.</p>
<h2>FAQ: cos'è un captcha?</h2><p>Un CAPTCHA è un test che distingue le persone dai programmi.</p>
<p>Diffida di chi ti chiede di «verificare di essere umano» via mail.</p>
<button type="button" onclick="this.textContent = 'Letto'">Segna come letto</button>`

// TestACaptchaMentionDoesNotEndTheRun: on a real page that only talks about CAPTCHAs the run goes on
// and the planner's click is dispatched (issue 52.6a).
func TestACaptchaMentionDoesNotEndTheRun(t *testing.T) {
	needChromium(t)
	pol, px := portalProxy(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, captchaFAQPage)
	}))
	sess, rec := newSession(t, sharedBrowser(t), px, pol, t.TempDir())
	t.Cleanup(func() { _ = sess.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	ag := &agentkit.Agent{Policy: pol, Planner: &clickPlanner{names: []string{"Segna come letto"}}}
	res, err := ag.Run(ctx, sess, rec, agentkit.Task{StartURL: "http://portale.interno.test/pratiche/aiuto", Goal: "leggi"})
	if err != nil {
		t.Fatal(err)
	}
	if res.Outcome != agentkit.Completed || res.Actions != 1 {
		t.Fatalf("outcome %s (%s), %d actions; want Completed after the click", res.Outcome, res.Reason, res.Actions)
	}
}
