package browser

import (
	"context"
	"fmt"
	"net/http"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/trapline/trapline/agentkit"
	"github.com/trapline/trapline/agentkit/action"
	"github.com/trapline/trapline/agentkit/evidence"
	"github.com/trapline/trapline/agentkit/planner"
	"github.com/trapline/trapline/agentkit/policy"
)

// dialogPage has three buttons that each open a confirm and write what it answered: the save's own
// confirmation, the same words opened by another button, and an "are you sure" that deletes.
const dialogPage = `<!doctype html><title>Conferme</title><h1>Pratica 7</h1>
<button onclick="document.getElementById('salva').textContent = confirm('Confermi il salvataggio?') ? 'accettato' : 'rifiutato'">Salva</button>
<button onclick="document.getElementById('aggiorna').textContent = confirm('Confermi il salvataggio?') ? 'accettato' : 'rifiutato'">Aggiorna elenco</button>
<button onclick="document.getElementById('archivia').textContent = confirm('Sei sicuro di voler eliminare?') ? 'accettato' : 'rifiutato'">Archivia</button>
<p>Salva: <output id="salva">-</output></p><p>Aggiorna: <output id="aggiorna">-</output></p><p>Archivia: <output id="archivia">-</output></p>`

// dialogRulesPatch is the rules on the reference policy.
const dialogRulesPatch = `dialogs:
  default: dismiss_and_log
  rules:
    - {text: "(?i)confermi il salvataggio", after: {role: button, name: "(?i)^salva$"}, then: accept}
    - {text: "(?i)sei sicuro", then: ask}
`

// clickPlanner clicks the buttons it names, in order, found by role and name, then is done.
type clickPlanner struct {
	mu    sync.Mutex
	names []string
}

func (p *clickPlanner) Next(_ context.Context, in planner.Input) (action.Action, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.names) == 0 {
		return action.Action{Kind: action.Done, Reason: "clicked them all"}, nil
	}
	n, err := in.Observation.Find("button", p.names[0])
	if err != nil {
		return action.Action{}, err
	}
	p.names = p.names[1:]
	return action.Action{Kind: action.Click, Ref: n.Ref}, nil
}

// recordingApprover passes each request to an approver and keeps it.
type recordingApprover struct {
	mu   sync.Mutex
	next agentkit.Approver
	reqs []agentkit.ApprovalRequest
}

func (a *recordingApprover) Approve(ctx context.Context, req agentkit.ApprovalRequest) (bool, string, error) {
	a.mu.Lock()
	a.reqs = append(a.reqs, req)
	a.mu.Unlock()
	return a.next.Approve(ctx, req)
}

// TestDialogRulesOnARealPage: the save's confirmation is accepted after "Salva" only; the same words
// after another button are dismissed (the default); the "are you sure" goes to the approver, which
// refuses it by default and approves it when a ScriptedApprover lists it. Each decision is in the
// evidence: accepted ones in console.jsonl, dismissed ones in violations.jsonl (rule dialog).
func TestDialogRulesOnARealPage(t *testing.T) {
	for _, c := range []struct {
		name     string
		approver agentkit.Approver
		archivia string
	}{
		{"no approver", nil, "rifiutato"},
		{"a scripted approver", agentkit.NewScriptedApprover(agentkit.DialogRole, "Sei sicuro di voler eliminare?"), "accettato"},
	} {
		t.Run(c.name, func(t *testing.T) {
			needChromium(t)
			ref, px := portalProxy(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "text/html; charset=utf-8")
				fmt.Fprint(w, dialogPage)
			}))
			pol, err := policy.Patch(ref, []byte(dialogRulesPatch), "reference + dialog rules")
			if err != nil {
				t.Fatal(err)
			}
			dir := t.TempDir()
			rec, err := evidence.Open(dir, evidence.NewRedactor())
			if err != nil {
				t.Fatal(err)
			}
			ap := &recordingApprover{next: agentkit.DenyApprovals{}}
			if c.approver != nil {
				ap.next = c.approver
			}
			sess, err := sharedBrowser(t).NewSession(SessionOptions{ProxyURL: px.URL(), Policy: pol, Recorder: rec, Approver: ap})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = sess.Close() })
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			ag := &agentkit.Agent{Policy: pol, Planner: &clickPlanner{names: []string{"Salva", "Aggiorna elenco", "Archivia"}}}
			res, err := ag.Run(ctx, sess, rec, agentkit.Task{StartURL: "http://portale.interno.test/pratiche/7", Goal: "conferme"})
			if err != nil || res.Outcome != agentkit.Completed {
				t.Fatalf("run: %v, %s %q", err, res.Outcome, res.Reason)
			}
			for id, want := range map[string]string{"salva": "accettato", "aggiorna": "rifiutato", "archivia": c.archivia} {
				if got, err := sess.Page().Locator("#" + id).TextContent(); err != nil || got != want {
					t.Errorf("%s's confirm answered %q (%v), want %q", id, got, err, want)
				}
			}
			if err := rec.Close(); err != nil {
				t.Fatal(err)
			}
			checkDialogEvidence(t, dir, rec.Violations(), c.archivia == "accettato")
			if len(ap.reqs) != 1 || ap.reqs[0].Target.Role != agentkit.DialogRole || ap.reqs[0].Target.Name != "Sei sicuro di voler eliminare?" ||
				ap.reqs[0].Opener == nil || ap.reqs[0].Opener.Name != "Archivia" || ap.reqs[0].Action.Kind != action.Click {
				t.Errorf("approval requests %+v, want one for the dialog, opened by clicking Archivia", ap.reqs)
			}
		})
	}
}

// checkDialogEvidence checks that every dialog decision is recorded: accepts in console.jsonl,
// dismissals in violations.jsonl, each naming the action that opened the dialog.
func checkDialogEvidence(t *testing.T, dir string, vs []evidence.Violation, approved bool) {
	t.Helper()
	console, err := evidence.ReadConsole(filepath.Join(dir, evidence.ConsoleFile))
	if err != nil {
		t.Fatal(err)
	}
	var accepted []string
	for _, c := range console {
		if c.Type == ConsoleDialog {
			accepted = append(accepted, c.Text)
		}
	}
	wantAccepted, wantDismissed := 1, 2
	if approved {
		wantAccepted, wantDismissed = 2, 1
	}
	if len(accepted) != wantAccepted || !strings.Contains(accepted[0], `dialogs.rules[0]`) || !strings.Contains(accepted[0], `opened by click button "Salva"`) {
		t.Errorf("accepted dialogs in console.jsonl: %q, want %d, the first by rule 0 after Salva", accepted, wantAccepted)
	}
	if len(vs) != wantDismissed {
		t.Fatalf("violations %+v, want %d dismissed dialogs", vs, wantDismissed)
	}
	for _, v := range vs {
		if v.Rule != policy.RuleDialog || v.Taken != evidence.TakenDismissed || v.Source != policy.LayerBrowser || v.Action != nil {
			t.Errorf("violation %+v: want rule dialog, dismissed, at the browser, naming no action of its own", v)
		}
	}
	if !strings.Contains(vs[0].Reason, "by dialogs' default") || !strings.Contains(vs[0].Reason, `opened by click button "Aggiorna elenco"`) {
		t.Errorf("the spoofed save confirmation: %q", vs[0].Reason)
	}
	if !approved && !strings.Contains(vs[1].Reason, "not approved") {
		t.Errorf("the are-you-sure: %q, want not approved", vs[1].Reason)
	}
}
