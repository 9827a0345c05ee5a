package browser

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"testing"
	"time"

	"github.com/trapline/trapline/agentkit"
	"github.com/trapline/trapline/agentkit/evidence"
	"github.com/trapline/trapline/agentkit/policy"
)

// refusalPage has one button per refusal of the browser edge: a confirm the policy dismisses, a
// fetch the route gate blocks, a download the policy cancels and a popup it closes.
const refusalPage = `<!doctype html><title>Rifiuti</title><h1>Pratica 9</h1>
<button onclick="confirm('Vuoi lasciare una nota?')">Nota</button>
<button onclick="fetch('http://fuori.esterno.test/raccolta').catch(() => {}); document.querySelector('h1').textContent = 'Pratica 9 aggiornata'">Aggiorna</button>
<a href="/allegato.bin" download>Allegato</a>
<a href="/aperta" target="_blank">Apri a parte</a>`

// TestEveryBrowserRefusalHasAScreenshot: a dismissed dialog, a request the route gate blocked, a
// cancelled download and a closed popup each name a screenshot of the page in violations.jsonl, and
// the file is there; the record is written after the refusal (the dialog is dismissed first).
func TestEveryBrowserRefusalHasAScreenshot(t *testing.T) {
	needChromium(t)
	pol, px := portalProxy(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/allegato.bin" {
			w.Header().Set("Content-Disposition", `attachment; filename="allegato.bin"`)
			fmt.Fprint(w, "contenuto")
			return
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, refusalPage)
	}))
	dir := t.TempDir()
	sess, rec := newSession(t, sharedBrowser(t), px, pol, dir)
	t.Cleanup(func() { _ = sess.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	clicks := &clickPlanner{names: []string{"Nota", "Aggiorna"}}
	ag := &agentkit.Agent{Policy: pol, Planner: clicks}
	if _, err := ag.Run(ctx, sess, rec, agentkit.Task{StartURL: "http://portale.interno.test/pratiche/9", Goal: "rifiuti"}); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"Allegato", "Apri a parte"} {
		if err := sess.Page().GetByText(name).Click(); err != nil {
			t.Fatalf("click %s: %v", name, err)
		}
	}
	want := map[policy.Rule]bool{policy.RuleDialog: false, policy.RuleHostNotAllowed: false, policy.RuleDownload: false, policy.RulePopup: false}
	deadline := time.Now().Add(10 * time.Second)
	for !allSeen(want, rec.Violations()) && time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond) // the download and popup events come on the browser's own time
	}
	for _, v := range rec.Violations() {
		want[v.Rule] = true
		if v.Screenshot == "" {
			t.Errorf("violation %d (%s, %s) has no screenshot", v.Seq, v.Rule, v.Taken)
			continue
		}
		if fi, err := os.Stat(v.Screenshot); err != nil || fi.Size() == 0 {
			t.Errorf("violation %d (%s): screenshot %s missing or empty (%v)", v.Seq, v.Rule, v.Screenshot, err)
		}
	}
	for rule, seen := range want {
		if !seen {
			t.Errorf("no %s refusal recorded: %+v", rule, rec.Violations())
		}
	}
}

func allSeen(want map[policy.Rule]bool, vs []evidence.Violation) bool {
	seen := map[policy.Rule]bool{}
	for _, v := range vs {
		seen[v.Rule] = true
	}
	for r := range want {
		if !seen[r] {
			return false
		}
	}
	return true
}
