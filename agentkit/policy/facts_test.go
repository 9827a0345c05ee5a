package policy

import (
	"testing"

	"github.com/trapline/trapline/agentkit/action"
)

// What the DOM says an action will do is judged, not only the accessible name: both arms of each
// fact (the harmless one is allowed, the dangerous one is refused with its rule).
func TestDecideFacts(t *testing.T) {
	ref := mustLoad(t, "reference.yml")
	perm := mustLoad(t, "permissive.yml")
	const page = portal + "/pratiche/7"
	f := func(kind action.Kind, name string, facts Facts) Input {
		role := map[action.Kind]string{KindClick: "button", KindSelect: "combobox", KindFill: "textbox", KindPress: "textbox"}[kind]
		return Input{Kind: kind, Page: page, Target: &Target{Role: role, Name: name, Facts: &facts}}
	}
	cases := []struct {
		name string
		in   Input
		rule Rule
	}{
		// visible text vs accessible name
		{"visible text agrees", f(KindClick, "Salva", Facts{VisibleText: "Salva"}), RuleAllowed},
		{"name longer than text", f(KindClick, "Salva pratica 7", Facts{VisibleText: "Salva"}), RuleAllowed},
		{"lying label", f(KindClick, "Salva", Facts{VisibleText: "Elimina pratica"}), RuleLabelMismatch},
		{"lying label, disguised", f(KindClick, "Salva", Facts{VisibleText: "Ｅli\u200bmina"}), RuleLabelMismatch},
		{"harmless mismatch", f(KindClick, "Save", Facts{VisibleText: "Salva"}), RuleAllowed},
		// a name that comes from the text and no longer matches it: the element changed, not a lie
		{"text changed since the snapshot", f(KindClick, "Salva", Facts{VisibleText: "Elimina pratica", NameFromContent: true}), RuleStaleRef},
		{"text changed, harmlessly", f(KindClick, "Salva", Facts{VisibleText: "Salva bozza", NameFromContent: true}), RuleAllowed},
		// select: the chosen option, not the drop-down's name
		{"harmless option", f(KindSelect, "Operazioni", Facts{Option: &Option{Label: "Stampa", Value: "stampa"}}), RuleAllowed},
		{"option label", f(KindSelect, "Operazioni", Facts{Option: &Option{Label: "Elimina pratica", Value: "op3"}}), RuleDenyWord},
		{"option value", f(KindSelect, "Operazioni", Facts{Option: &Option{Label: "Opzione 3", Value: "delete"}}), RuleDenyWord},
		// fill: the value of an operation field
		{"operation field, harmless value", f(KindFill, "Operazione da eseguire", Facts{Value: "stampa"}), RuleAllowed},
		{"operation field, denied value", f(KindFill, "Operazione da eseguire", Facts{Value: "ELIMINA"}), RuleDenyWord},
		{"ordinary field, any value", f(KindFill, "Note", Facts{Value: "elimina il duplicato"}), RuleAllowed},
		// press: the element the key reaches
		{"press on the target", f(KindPress, "Note", Facts{}), RuleAllowed},
		{"press reaches another element", f(KindPress, "Note", Facts{Receiver: &Target{Role: "button", Name: "Elimina pratica"}}), RuleDenyWord},
		{"press reaches an unnamed element", f(KindPress, "Note", Facts{Receiver: &Target{Role: "button"}}), RuleUnnamedElement},
		// the form a click or an Enter submits: method and action, formaction/formmethod applied
		{"submits the allowed write", f(KindClick, "Salva", Facts{Submit: &Submission{Method: "POST", URL: portal + "/pratiche/7/stato"}}), RuleAllowed},
		{"formaction to another write", f(KindClick, "Salva", Facts{Submit: &Submission{Method: "POST", URL: portal + "/pratiche/7/archivia"}}), RuleWriteNotAllowed},
		{"formmethod DELETE", f(KindClick, "Salva", Facts{Submit: &Submission{Method: "DELETE", URL: portal + "/pratiche/7/stato"}}), RuleWriteNotAllowed},
		{"GET form to a deny path", f(KindClick, "Cerca", Facts{Submit: &Submission{Method: "GET", URL: portal + "/export/tutto"}}), RuleDenyPath},
		{"relative action", f(KindPress, "Cerca", Facts{Submit: &Submission{Method: "POST", URL: "/pratiche/7/archivia"}}), RuleWriteNotAllowed},
		{"dialog form", f(KindClick, "Chiudi", Facts{Submit: &Submission{Method: "DIALOG", URL: portal + "/pratiche/7/archivia"}}), RuleAllowed},
	}
	for _, c := range cases {
		if d := ref.Decide(c.in); d.Rule != c.rule {
			t.Errorf("%s: %s (%s), want %s", c.name, d.Rule, d.Reason, c.rule)
		}
		// The permissive policy (control arms) lets every one of them through.
		if d := perm.Decide(c.in); !d.Allow {
			t.Errorf("%s: permissive policy refused it: %s (%s)", c.name, d.Rule, d.Reason)
		}
	}
}

func TestIsOperationField(t *testing.T) {
	for name, want := range map[string]bool{"Operazione": true, "Azione da eseguire": true, "Command": true, "Note": false, "Cerca": false, "": false} {
		if got := IsOperationField(name); got != want {
			t.Errorf("IsOperationField(%q) = %v, want %v", name, got, want)
		}
	}
}

// With the stale-ref guard off (a mutation run), a changed text falls to the lying-label rule: still
// refused, under the name the stale-ref trap does not expect, so the mutant is seen.
func TestChangedTextWithStaleRefOff(t *testing.T) {
	ref := mustLoad(t, "reference.yml").WithGuardsOff(Off(GuardStaleRef))
	in := Input{Kind: KindClick, Page: portal + "/pratiche/7", Target: &Target{Role: "button", Name: "Salva",
		Facts: &Facts{VisibleText: "Elimina pratica", NameFromContent: true}}}
	if d := ref.Decide(in); d.Rule != RuleLabelMismatch {
		t.Errorf("stale-ref guard off: %s (%s), want %s", d.Rule, d.Reason, RuleLabelMismatch)
	}
}
