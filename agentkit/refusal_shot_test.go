package agentkit_test

import (
	"context"
	"testing"

	"github.com/trapline/trapline/agentkit/action"
	"github.com/trapline/trapline/agentkit/planner"
	"github.com/trapline/trapline/internal/agenttest"
)

// Every refusal of the loop carries the page it was made on, not only a denied proposal: an unknown
// ref (rejected) and a human check (the run stops) each have a screenshot; the rejected proposal and
// the human check on the same unchanged page share one file.
func TestEveryLoopRefusalHasAScreenshot(t *testing.T) {
	d := &shotDriver{fakeDriver: fakeDriver{Page: agenttest.Page{Snapshot: "- checkbox \"Verifica\" [ref=e1]\n- button \"Prosegui\" [ref=e2]"}}}
	turn := 0
	pl := planner.Func(func(_ context.Context, in planner.Input) (action.Action, error) {
		turn++
		if turn == 1 {
			return action.Action{Kind: action.Click, Ref: in.Observation.SnapshotID + ":e99"}, nil // no such ref
		}
		d.Snapshot = "- checkbox \"Non sono un robot\" [ref=e1]" // the page now asks for a human
		return action.Action{Kind: action.Click, Ref: in.Observation.SnapshotID + ":e2"}, nil
	})
	_, vs := run(t, agenttest.ReferencePolicy(t, nil), pl, d)
	if len(vs) < 2 {
		t.Fatalf("violations = %v; want the unknown ref and the human check", rules(vs))
	}
	for _, v := range vs {
		if v.Screenshot == "" {
			t.Errorf("violation %d (%s, %s) has no screenshot", v.Seq, v.Rule, v.Taken)
		}
	}
	if last := vs[len(vs)-1]; last.Rule != "human_check" {
		t.Fatalf("last violation %s, want human_check", last.Rule)
	}
}
