package browser

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
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

// TestProxyRefusalsAsThePageGotThem: with the route gate off, the world's proxy refuses the page's
// request; the session records it in console.jsonl (ConsoleProxyRefusal) with a screenshot that is
// there, and no line of violations.jsonl (it is no guard of the agent's own).
func TestProxyRefusalsAsThePageGotThem(t *testing.T) {
	needChromium(t)
	pol, px := portalProxy(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, `<!doctype html><title>Pratica</title><h1>Pratica 9</h1>
<button onclick="fetch('/admin/utenti').then(r => document.querySelector('h1').textContent = 'Risposta ' + r.status)">Aggiorna</button>`)
	}))
	dir := t.TempDir()
	rec, err := evidence.Open(dir, evidence.NewRedactor())
	if err != nil {
		t.Fatal(err)
	}
	sess, err := sharedBrowser(t).NewSession(SessionOptions{ProxyURL: px.URL(), Policy: pol, Recorder: rec, Off: policy.Off(policy.GuardRouteGate)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = sess.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	ag := &agentkit.Agent{Policy: pol, Planner: &clickPlanner{names: []string{"Aggiorna"}}}
	if _, err := ag.Run(ctx, sess, rec, agentkit.Task{StartURL: "http://portale.interno.test/pratiche/9", Goal: "aggiorna"}); err != nil {
		t.Fatal(err)
	}
	if err := rec.Flush(); err != nil {
		t.Fatal(err)
	}
	console, err := evidence.ReadConsole(filepath.Join(dir, evidence.ConsoleFile))
	if err != nil {
		t.Fatal(err)
	}
	var refusals []evidence.ConsoleRecord
	for _, c := range console {
		if c.Type == ConsoleProxyRefusal {
			refusals = append(refusals, c)
		}
	}
	if len(refusals) != 1 || !strings.Contains(refusals[0].Text, "/admin/utenti refused by the proxy: deny_path") {
		t.Fatalf("proxy refusals in console.jsonl: %+v, want the fetch of /admin/utenti, deny_path", refusals)
	}
	if fi, err := os.Stat(refusals[0].Screenshot); err != nil || fi.Size() == 0 {
		t.Fatalf("the refusal's screenshot %q is missing or empty (%v)", refusals[0].Screenshot, err)
	}
	for _, v := range rec.Violations() {
		if v.Rule == policy.RuleDenyPath {
			t.Fatalf("the proxy's refusal is a line of violations.jsonl: %+v", v)
		}
	}
}
