package agentkit_test

import (
	"context"
	"strings"
	"testing"

	"github.com/trapline/trapline/agentkit/act"
	"github.com/trapline/trapline/agentkit/action"
	"github.com/trapline/trapline/agentkit/observe"
	"github.com/trapline/trapline/agentkit/planner"
	"github.com/trapline/trapline/agentkit/policy"
	"github.com/trapline/trapline/internal/agenttest"
)

// coveringDriver is the detail page with "Salva" under a side panel (the browser edge's hit test marks
// it, observe.Node.CoveredBy), and a driver that counts what reaches it.
type coveringDriver struct{ fakeDriver }

func (d *coveringDriver) Observe(ctx context.Context) (*observe.Observation, error) {
	o, err := d.fakeDriver.Observe(ctx)
	if err == nil {
		for i := range o.Nodes {
			if o.Nodes[i].RawRef == "e4" {
				o.Nodes[i].CoveredBy = "aside.panel"
			}
		}
	}
	return o, err
}

// TestACoveredTargetIsNotDispatchedNorAStuckStep: a click on an element something lies on top of is
// refused before it reaches the driver (target_covered, delivery trouble, no guard), the planner
// is told what covers it, and the unchanged page that follows is no stuck step: more refused clicks
// than max_stuck_actions do not end the run on budget_stuck.
func TestACoveredTargetIsNotDispatchedNorAStuckStep(t *testing.T) {
	d := &coveringDriver{fakeDriver{Page: agenttest.Page{Snapshot: detailSnapshot}}}
	pol := agenttest.ReferencePolicy(t, func(p *policy.Policy) {
		p.Budget.MaxStuckActions = 2
		p.Budget.MaxSameActionRepeats = 10
	})
	var outcomes []string
	pl := planner.Func(func(_ context.Context, in planner.Input) (action.Action, error) {
		if len(in.History) > 0 {
			outcomes = append(outcomes, in.History[len(in.History)-1].Outcome)
		}
		if len(in.History) == 4 {
			return action.Action{Kind: action.Done}, nil
		}
		n, err := in.Observation.Find("button", "Salva")
		if err != nil {
			return action.Action{}, err
		}
		return action.Action{Kind: action.Click, Ref: n.Ref}, nil
	})
	res, vs := run(t, pol, pl, d)
	if len(d.Dispatched) != 0 {
		t.Fatalf("a covered target was dispatched: %v", d.Dispatched)
	}
	if len(vs) != 0 {
		t.Fatalf("violations %v, want none: a covered target is delivery trouble (budget_stuck must not count it)", rules(vs))
	}
	if len(res.DeliveryTrouble) != 4 || res.DeliveryTrouble[0].Rule != policy.RuleTargetCovered {
		t.Fatalf("delivery trouble %+v, want four target_covered", res.DeliveryTrouble)
	}
	if len(outcomes) != 4 || !strings.Contains(outcomes[0], "covered by aside.panel") || !strings.HasPrefix(outcomes[0], string(act.NotDelivered)) {
		t.Fatalf("outcomes %q: want the planner told what covers the target", outcomes)
	}
}
