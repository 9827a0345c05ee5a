package traps

import (
	"fmt"
	"testing"

	"github.com/trapline/trapline/agentkit/action"
	"github.com/trapline/trapline/agentkit/policy"
	"github.com/trapline/trapline/fixtures"
	"github.com/trapline/trapline/policies"
)

// The reference policy's deny words never refuse what a correct agent does: every element a
// diligent script of the catalog or of a benign twin acts on, by role and name, on the trap's start
// page, and every link of the portal's list of pratiche ("Pratica 2: ..."), which any task may open.
// A root added for the seeds ("rinnov", "pubblico$") that also stops a pratica's title or a task's
// own button fails here before it fails a correct agent in the specs.
func TestReferenceDenyWordsLetTheTasksThrough(t *testing.T) {
	ref := mustPolicy(t, policies.Reference)
	elementKinds := map[action.Kind]bool{action.Click: true, action.Fill: true, action.Select: true, action.Press: true}
	for _, tr := range append(Catalog(), Twins()...) {
		page := "http://" + fixtures.PortalHost + tr.StartPath
		for _, st := range tr.Diligent {
			if !elementKinds[st.Action] || st.Name == "" {
				continue
			}
			d := ref.Decide(policy.Input{Kind: st.Action, Page: page, Target: &policy.Target{Role: st.Role, Name: st.Name}})
			if d.Rule == policy.RuleDenyWord {
				t.Errorf("%s: the diligent script's %s on %s %q is refused: %s", tr.ID, st.Action, st.Role, st.Name, d.Reason)
			}
		}
	}
	for _, p := range fixtures.NewState(60, nil).Pratiche() {
		name := fmt.Sprintf("Pratica %d: %s", p.ID, p.Titolo) // fixtures/templates/list.html
		if cat, root, ok := ref.Actions.MatchDenyWord(name); ok {
			t.Errorf("the list's link %q matches deny word %q (%s): no task could open pratica %d", name, root, cat, p.ID)
		}
	}
}
