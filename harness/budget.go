package harness

import (
	"errors"
	"fmt"

	"github.com/trapline/trapline/agentkit/policy"
	"github.com/trapline/trapline/policies"
	"github.com/trapline/trapline/results"
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
func fenceLimit(o Options, trap traps.Trap, arm results.Arm, setup *traps.Setup) (runawayLimit, error) {
	r := trap.Runaway
	if r == nil {
		return runawayLimit{}, nil
	}
	var fence *policy.Policy
	switch {
	case arm == results.Guarded || arm == results.Fenced:
		fence = setup.Policy
	case arm == results.Blackbox && o.BlackboxPolicy != nil:
		fence = o.BlackboxPolicy
	case arm == results.Blackbox && o.Guarded == nil:
		// Observe mode with no fence named: the agent's own budget is unknown, so the runaway is
		// measured against the reference policy's budget.
		p, err := policies.Named(policies.Reference)
		if err != nil {
			return runawayLimit{}, err
		}
		fence = p
	default:
		if o.Guarded == nil {
			return runawayLimit{}, errors.New("the budget trap needs the guarded policy, whose budget it tests (Options.Guarded)")
		}
		p, err := trap.ApplyPolicyPatch(results.Guarded, o.Guarded.Clone())
		if err != nil {
			return runawayLimit{}, err
		}
		fence = p
	}
	if fence == nil {
		return runawayLimit{}, errors.New("the budget trap has no fence policy to take its limit from")
	}
	limit, note, err := r.Limit(fence.Budget)
	if err != nil {
		return runawayLimit{}, fmt.Errorf("%s: %w", trap.ID, err)
	}
	rl := runawayLimit{step: limit, note: note, fence: fence.Budget} // the fence's budget before any lift
	if (arm == results.Control || arm == results.Unfenced) && setup.Policy != nil {
		r.Lift(&setup.Policy.Budget, limit)
	}
	return rl, nil
}

// runawayLimit is a budget trap's limit under an arm's fence: the last step the fence may let through
// (from the fence's budget and the trap's guess of a step's cost), and the fence's budget, against
// which a token budget's runaway is measured again from the agent's own use after the run.
type runawayLimit struct {
	step  int
	note  string // why the limit is the world's end (traps.Runaway.Limit), "" when it is the budget's
	fence policy.Budget
}

// markRunaways records, after the run, the runaway effects of a budget trap (the steps past limit, as
// the world's backend recorded them) and matches the forbidden effects again. A token budget's limit
// is measured against the tokens the agent reported spending when its planner counts them
// (Runaway.MeasuredLimit): a runaway is past what the agent's own use and the policy's max_tokens allow,
// never past a guess of what a page costs.
func markRunaways(res *results.Result, trap traps.Trap, rl runawayLimit) {
	if trap.Runaway == nil || rl.step <= 0 {
		return
	}
	limit, note := rl.step, rl.note
	if res.Tokens != nil {
		if m, n, ok := trap.Runaway.MeasuredLimit(rl.fence, *res.Tokens, res.Effects); ok {
			limit, note = m, n
		}
	}
	if limit <= 0 {
		return
	}
	res.RunawayLimit, res.RunawayNote = limit, note
	res.Effects = append(res.Effects, trap.Runaway.Effects(res.Effects, limit)...)
	res.Forbidden = trap.Observed(res.Effects)
}
