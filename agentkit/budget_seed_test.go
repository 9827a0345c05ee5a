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
	"github.com/trapline/trapline/agentkit/planner"
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

// rowsSnapshot is a list of three rows, each with its own identical "Apri" button.
const rowsSnapshot = `- generic [ref=e1]:
  - heading "Todo" [level=1] [ref=e2]
  - listitem [ref=e3]:
    - button "Apri" [ref=e4]
  - listitem [ref=e5]:
    - button "Apri" [ref=e6]
  - listitem [ref=e7]:
    - button "Apri" [ref=e8]
`

// The repeat budget counts one instance's repeats: three identical "Apri", one per row, are three
// actions (each row's button is tried once and the run goes on), while the same instance proposed
// again and again (a load-more button) still meets max_same_action_repeats.
func TestRepeatBudgetTellsInstancesApart(t *testing.T) {
	turn := 0
	eachRow := planner.Func(func(_ context.Context, in planner.Input) (action.Action, error) {
		var apri []observe.Node
		for _, n := range in.Observation.Elements() {
			if n.Role == "button" && n.Name == "Apri" {
				apri = append(apri, n)
			}
		}
		if turn >= len(apri) {
			return action.Action{Kind: action.Done, Reason: "ogni riga aperta"}, nil
		}
		turn++
		return action.Action{Kind: action.Click, Ref: apri[turn-1].Ref}, nil
	})
	d := &fakeDriver{Page: agenttest.Page{Snapshot: rowsSnapshot}}
	res, vs := run(t, agenttest.ReferencePolicy(t, nil), eachRow, d)
	if len(d.Dispatched) != 3 || slices.Contains(rules(vs), string(policy.RuleBudgetRepeats)) {
		t.Fatalf("dispatched %v, violations %v (outcome %s): want the three rows' buttons, no repeat budget", d.Dispatched, rules(vs), res.Outcome)
	}

	first := planner.Func(func(_ context.Context, in planner.Input) (action.Action, error) {
		for _, n := range in.Observation.Elements() {
			if n.Role == "button" && n.Name == "Apri" {
				return action.Action{Kind: action.Click, Ref: n.Ref}, nil
			}
		}
		return action.Action{}, planner.ErrGaveUp
	})
	d = &fakeDriver{Page: agenttest.Page{Snapshot: rowsSnapshot}}
	res, vs = run(t, agenttest.ReferencePolicy(t, nil), first, d)
	if len(d.Dispatched) != 2 || res.Outcome != agentkit.Exhausted || !slices.Contains(rules(vs), string(policy.RuleBudgetRepeats)) {
		t.Fatalf("the first row's button again and again: dispatched %d, outcome %s, violations %v; want 2 and %s", len(d.Dispatched), res.Outcome, rules(vs), policy.RuleBudgetRepeats)
	}
}

// max_actions counts every attempt, as the seeds' budget does: two refused clicks and one dispatched
// spend a budget of 3, and the next proposal is refused by budget_actions (before, refused actions
// spent nothing and the planner could try them forever under block_and_log).
func TestRefusedActionsSpendTheActionBudget(t *testing.T) {
	d := &fakeDriver{Page: agenttest.Page{Snapshot: detailSnapshot}}
	pol := agenttest.ReferencePolicy(t, func(p *policy.Policy) {
		p.Navigation.OnViolation = policy.BlockAndLog
		p.Budget.MaxActions, p.Budget.MaxSameActionRepeats, p.Budget.MaxStuckActions = 3, 100, 100
	})
	names := []string{"Elimina pratica", "Elimina pratica", "Salva", "Salva"}
	turn := 0
	pl := planner.Func(func(ctx context.Context, in planner.Input) (action.Action, error) {
		if turn == len(names) {
			return action.Action{Kind: action.Done}, nil
		}
		turn++
		return clickEveryTurn(names[turn-1])(ctx, in)
	})
	res, vs := run(t, pol, pl, d)
	if len(d.Dispatched) != 1 {
		t.Fatalf("dispatched %v, want the first Salva only", d.Dispatched)
	}
	if res.Outcome != agentkit.Exhausted || res.Reason != policy.RuleBudgetActions.String() || res.Actions != 3 {
		t.Fatalf("outcome %s (%s), %d actions, violations %v; want Exhausted by %s after 3", res.Outcome, res.Reason, res.Actions, rules(vs), policy.RuleBudgetActions)
	}
}
