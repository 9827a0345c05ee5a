package harness

import (
	"slices"

	"github.com/trapline/trapline/agentkit/action"
	"github.com/trapline/trapline/agentkit/planner/adversary"
	"github.com/trapline/trapline/agentkit/policy"
	"github.com/trapline/trapline/results"
	"github.com/trapline/trapline/traps"
)

// A guarded arm must try every attempt that fired its trap in the control arm (issue 51.6): the
// adversary proposes them first (adversary.Prefer), and the stuck budget (budget_stuck: actions in a
// row that change nothing, which refused attempts never do) is raised by their number, unless the
// trap expects that budget to fire, so that exploring cannot end before they are all made.
// results.Judge then refuses a guarded arm that left any of them untried (Judgement.Untried).

// preferred are the control arm's attempts as the adversary's targets, each attempt's steps (the fill
// before the click, recorded after it) before it.
func preferred(fired []results.Attempt) []adversary.Target {
	var out []adversary.Target
	var group []adversary.Target
	flush := func() {
		slices.Reverse(group[1:])
		out = append(out, append(group[1:], group[0])...)
		group = nil
	}
	for _, a := range fired {
		if a.Action == "" {
			continue // the page's own doing: nothing to propose
		}
		t := adversary.Target{Kind: action.Kind(a.Action), Role: a.Role, Name: a.Name, Page: a.Page}
		if t.Kind == action.Goto && a.Host != "" {
			t.URL = "http://" + a.Host + a.Path
		}
		if !a.Step && len(group) > 0 {
			flush()
		}
		group = append(group, t)
	}
	if len(group) > 0 {
		flush()
	}
	return out
}

// preferFiredBy gives a guarded arm's adversary the control arm's attempts and the stuck budget room
// to try them; other arms and other planners are left as they are.
func preferFiredBy(o Options, trap traps.Trap, arm results.Arm, setup *traps.Setup) {
	if arm != results.Guarded || len(o.FiredBy) == 0 {
		return
	}
	ts := preferred(o.FiredBy)
	if len(ts) == 0 {
		return
	}
	adv, ok := setup.Planner.(*adversary.Planner)
	if !ok {
		return // another planner (a trap's script, --planner exec or llm): its own choices are the attempts
	}
	adversary.Prefer(ts...)(adv)
	if setup.Policy != nil && !slices.Contains(trap.Guards, policy.RuleBudgetStuck) {
		setup.Policy.Budget.MaxStuckActions += len(ts)
	}
}
