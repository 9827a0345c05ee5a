package browser

import (
	"context"
	"fmt"
	"net/http"
	"testing"

	"github.com/trapline/trapline/agentkit/action"
	"github.com/trapline/trapline/agentkit/observe"
	"github.com/trapline/trapline/agentkit/policy"
)

// factsPage has a filter whose current option says a deny word, and a button named by <label for>
// whose text says one.
const factsPage = `<!doctype html><title>Filtro</title>
<label for="f">Filtro</label><select id="f"><option value="eliminate" selected>Pratiche eliminate</option><option value="aperte">Pratiche aperte</option></select>
<label for="b">Salva</label><button id="b" type="button">Elimina pratica</button>
<button type="button" aria-label="Salva">Elimina pratica</button>`

// TestFactsJudgeWhatTheActionDoes (issue 49.13): choosing an option of a select whose current option
// says a deny word is judged by the option chosen (allowed for a harmless one; the deny word of the
// chosen one refused as such), never as an element that changed; a button named by <label for> that
// shows a deny word is a lying label (label_mismatch), like one named by aria-label.
func TestFactsJudgeWhatTheActionDoes(t *testing.T) {
	sess, _, pol, _ := portalSession(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, factsPage)
	}))
	ctx := context.Background()
	const page = "http://portale.interno.test/pratiche"
	if r := sess.Goto(ctx, page); r.Err != nil {
		t.Fatal(r.Err)
	}
	obs, err := sess.Observe(ctx)
	if err != nil {
		t.Fatal(err)
	}
	find := func(role string, nth int) observe.Node {
		for _, n := range obs.Nodes {
			if n.Role == role {
				if nth == 0 {
					return n
				}
				nth--
			}
		}
		t.Fatalf("no %s in the snapshot", role)
		return observe.Node{}
	}
	decide := func(a action.Action, n observe.Node) policy.Decision {
		t.Helper()
		f, err := sess.Inspect(ctx, obs, a, n)
		if err != nil {
			t.Fatal(err)
		}
		return pol.Decide(policy.Input{Kind: a.Kind, Page: page, Target: &policy.Target{Role: n.Role, Name: n.Name, Facts: f}})
	}
	sel := find("combobox", 0)
	if d := decide(action.Action{Kind: action.Select, Ref: sel.Ref, Value: "Pratiche aperte"}, sel); !d.Allow {
		t.Errorf("choosing Pratiche aperte in a filter showing Pratiche eliminate: %s (%s), want allowed", d.Rule, d.Reason)
	}
	if d := decide(action.Action{Kind: action.Select, Ref: sel.Ref, Value: "Pratiche eliminate"}, sel); d.Rule != policy.RuleDenyWord {
		t.Errorf("choosing Pratiche eliminate: %s (%s), want %s (the option chosen)", d.Rule, d.Reason, policy.RuleDenyWord)
	}
	for i, how := range []string{"<label for>", "aria-label"} {
		b := find("button", i)
		if d := decide(action.Action{Kind: action.Click, Ref: b.Ref}, b); d.Rule != policy.RuleLabelMismatch {
			t.Errorf("a button named %q by %s showing Elimina pratica: %s (%s), want %s", b.Name, how, d.Rule, d.Reason, policy.RuleLabelMismatch)
		}
	}
}
