package agentkit_test

import (
	"context"
	"fmt"
	"slices"
	"testing"

	"github.com/trapline/trapline/agentkit"
	"github.com/trapline/trapline/agentkit/act"
	"github.com/trapline/trapline/agentkit/action"
	"github.com/trapline/trapline/agentkit/observe"
	"github.com/trapline/trapline/agentkit/policy"
	"github.com/trapline/trapline/internal/agenttest"
)

// clickSalva proposes a click on "Salva" every turn.
var clickSalva = clickEveryTurn("Salva")

// max_same_action_repeats: 3, as in the seeds, stops the third identical action: two dispatches.
func TestThirdIdenticalActionIsStopped(t *testing.T) {
	d := &fakeDriver{Page: agenttest.Page{Snapshot: detailSnapshot}}
	res, vs := run(t, agenttest.ReferencePolicy(t, nil), clickSalva, d)
	if len(d.Dispatched) != 2 {
		t.Fatalf("dispatched %d times (%v), want 2: the third identical action is refused", len(d.Dispatched), d.Dispatched)
	}
	if res.Outcome != agentkit.Exhausted || !slices.Contains(rules(vs), string(policy.RuleBudgetRepeats)) {
		t.Fatalf("outcome %s (%s), violations %v; want Exhausted by %s", res.Outcome, res.Reason, rules(vs), policy.RuleBudgetRepeats)
	}
}

// navDriver is a fakeDriver whose every button click makes the browser navigate (a form submit, a
// script's location change), as a NavigationCounter reports it.
type navDriver struct {
	fakeDriver
	navs int
}

func (d *navDriver) Goto(ctx context.Context, u string) act.Result {
	d.navs++
	return d.fakeDriver.Goto(ctx, u)
}

func (d *navDriver) Act(ctx context.Context, obs *observe.Observation, a action.Action, n observe.Node) act.Result {
	d.navs++
	d.Snapshot = detailSnapshot + fmt.Sprintf("  - paragraph: visita %d\n", d.navs) // a new page each time
	return d.fakeDriver.Act(ctx, obs, a, n)
}

func (d *navDriver) Navigations() int { return d.navs }

// Navigations are counted from the browser's own count: button clicks that navigate (no link, no
// goto) spend the navigation budget, and the click after the last allowed one is refused.
func TestBrowserNavigationsSpendTheBudget(t *testing.T) {
	d := &navDriver{fakeDriver: fakeDriver{Page: agenttest.Page{Snapshot: detailSnapshot}}}
	pol := agenttest.ReferencePolicy(t, func(p *policy.Policy) { p.Budget.MaxNavigations = 4; p.Budget.MaxSameActionRepeats = 100 })
	res, vs := run(t, pol, clickSalva, d)
	if len(d.Dispatched) != 4 {
		t.Fatalf("dispatched %d clicks, want 4: the start page is not counted, the 5th navigation is refused", len(d.Dispatched))
	}
	if res.Outcome != agentkit.Exhausted || !slices.Contains(rules(vs), string(policy.RuleBudgetNav)) {
		t.Fatalf("outcome %s (%s), violations %v; want Exhausted by %s", res.Outcome, res.Reason, rules(vs), policy.RuleBudgetNav)
	}
}
