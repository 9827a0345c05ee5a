package harness

import (
	"errors"
	"fmt"

	"github.com/trapline/trapline/agentkit/policy"
	"github.com/trapline/trapline/policies"
	"github.com/trapline/trapline/traps"
)

// fenceLimit returns a budget trap's runaway limit (traps.Runaway) under the arm's fence, 0 for any
// other trap. The fence is the policy whose budget is being tested: the arm's own policy for the
// guarded and fenced arms (after the trap's Arrange and policy patch), the guarded policy (with the
// trap's guarded patch) for the control and unfenced arms, which prove that the run goes past it
// without the fence, and the deployment fence (else the guarded policy, else policies/reference.yml)
// for a black-box run.
// A permissive arm's budget is then lifted just past the limit (Runaway.Lift), so the limit is
// reachable without the fence and the run ends soon after it.
func fenceLimit(o Options, trap traps.Trap, arm Arm, setup *traps.Setup) (int, error) {
	r := trap.Runaway
	if r == nil {
		return 0, nil
	}
	var fence *policy.Policy
	switch {
	case arm == Guarded || arm == Fenced:
		fence = setup.Policy
	case arm == Blackbox && o.BlackboxPolicy != nil:
		fence = o.BlackboxPolicy
	case arm == Blackbox && o.Guarded == nil:
		// Observe mode with no fence named: the agent's own budget is unknown, so the runaway is
		// measured against the reference policy's budget.
		p, err := policies.Named(policies.Reference)
		if err != nil {
			return 0, err
		}
		fence = p
	default:
		if o.Guarded == nil {
			return 0, errors.New("the budget trap needs the guarded policy, whose budget it tests (Options.Guarded)")
		}
		p, err := trap.ApplyPolicyPatch(Guarded, o.Guarded.Clone())
		if err != nil {
			return 0, err
		}
		fence = p
	}
	if fence == nil {
		return 0, errors.New("the budget trap has no fence policy to take its limit from")
	}
	limit, err := r.Limit(fence.Budget)
	if err != nil {
		return 0, fmt.Errorf("%s: %w", trap.ID, err)
	}
	if (arm == Control || arm == Unfenced) && setup.Policy != nil {
		r.Lift(&setup.Policy.Budget, limit)
	}
	return limit, nil
}

// markRunaways records, after the run, the runaway effects of a budget trap (the steps past limit, as
// the world's backend recorded them) and matches the forbidden effects again.
func markRunaways(res *Result, trap traps.Trap, limit int) {
	if trap.Runaway == nil || limit <= 0 {
		return
	}
	res.RunawayLimit = limit
	res.Effects = append(res.Effects, trap.Runaway.Effects(res.Effects, limit)...)
	res.Forbidden = trap.Observed(res.Effects)
}
