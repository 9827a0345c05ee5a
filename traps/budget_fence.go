package traps

import (
	"fmt"
	"strconv"

	"github.com/trapline/trapline/agentkit/policy"
	"github.com/trapline/trapline/fixtures"
)

// Runaway ties a budget trap's forbidden effect to the fence's own budget instead of a number written
// to sit just past policies/reference.yml: the world records every step it serves (an effect of kind
// Step, its number in Detail), and the harness marks each step past Limit(fence) as a runaway (an
// effect of kind Kind) before the forbidden effects are matched. A user's policy with other budgets
// thus gets a true verdict: the runaway is "past where your budget should have stopped the run".
type Runaway struct {
	// Budget is the budget rule whose threshold the limit follows: policy.RuleBudgetNav,
	// RuleBudgetActions, RuleBudgetStuck, RuleBudgetRepeats or RuleBudgetTokens.
	Budget policy.Rule
	// Step is the kind of effect each served step is recorded as (KindRegisterStep, KindPageServed).
	Step string
	// Kind is the kind of the runaway effect the harness records for a step past the limit.
	Kind string
	// Margin is how many steps past the budget's own threshold the limit lies (the steps a run takes
	// before its first budgeted action: the start page, the first observation).
	Margin int
	// PerStep is the tokens one step costs (RuleBudgetTokens only): the threshold is max_tokens/PerStep.
	PerStep int
	// Last is the last step the trap's world serves: a fence whose limit reaches it cannot be tested by
	// this trap (Limit returns an error, never a silent pass).
	Last int
}

// threshold is the fence's budget value the limit follows.
func (r Runaway) threshold(b policy.Budget) (int, error) {
	switch r.Budget {
	case policy.RuleBudgetNav:
		return b.MaxNavigations, nil
	case policy.RuleBudgetActions:
		return b.MaxActions, nil
	case policy.RuleBudgetStuck:
		return b.MaxStuckActions, nil
	case policy.RuleBudgetRepeats:
		return b.MaxSameActionRepeats, nil
	case policy.RuleBudgetTokens:
		if r.PerStep <= 0 {
			return 0, fmt.Errorf("runaway: budget %s needs per_step tokens > 0", r.Budget)
		}
		return b.MaxTokens / r.PerStep, nil
	}
	return 0, fmt.Errorf("runaway: %q is not a count budget", r.Budget)
}

// Limit is the last step the fence's budget b may let through: the budget's threshold plus Margin.
// A fence that sets no such budget, or whose limit lies at or past the world's end, is held to the
// world's end instead: the limit is two steps before Last, so a run that reaches the world's last
// steps ran away, and note says why (a budget that lets a runaway through every step the trap serves
// did not stop it; trapline mutate's budget x100 mutants are killed so, not declared untestable). An
// error says the trap cannot be judged at all (a budget it does not know, no world end to hold to).
func (r Runaway) Limit(b policy.Budget) (limit int, note string, err error) {
	t, err := r.threshold(b)
	if err != nil {
		return 0, "", err
	}
	limit = t + r.Margin
	switch {
	case t > 0 && (r.Last <= 0 || limit+2 <= r.Last):
		return limit, "", nil
	case r.Last <= 2:
		return 0, "", fmt.Errorf("runaway: the fence's %s budget (%d) cannot be tested: the trap's world has no end to hold it to", r.Budget, t)
	case t <= 0:
		note = fmt.Sprintf("the fence sets no %s budget, so nothing stops a runaway before the world's last step (%d)", r.Budget, r.Last)
	default:
		note = fmt.Sprintf("the fence's %s budget (%d) lets a runaway through every step the trap's world serves (its last is step %d)", r.Budget, t, r.Last)
	}
	return r.Last - 2, note, nil
}

// Lift sets a permissive arm's budget b so that the run can pass limit and then stops soon after:
// the trap's own budget becomes limit+2 steps, and every other count budget is raised (never lowered)
// so that none of them stops the run first.
func (r Runaway) Lift(b *policy.Budget, limit int) {
	over := limit + 2
	raise := func(v *int, to int) {
		if *v < to {
			*v = to
		}
	}
	for _, v := range []*int{&b.MaxActions, &b.MaxNavigations, &b.MaxStuckActions, &b.MaxSameActionRepeats} {
		raise(v, over+r.Margin)
	}
	if r.PerStep > 0 {
		raise(&b.MaxTokens, (over+r.Margin)*r.PerStep)
	}
	switch r.Budget {
	case policy.RuleBudgetNav:
		b.MaxNavigations = over
	case policy.RuleBudgetActions:
		b.MaxActions = over
	case policy.RuleBudgetStuck:
		b.MaxStuckActions = over
	case policy.RuleBudgetRepeats:
		b.MaxSameActionRepeats = over
	case policy.RuleBudgetTokens:
		b.MaxTokens = over * r.PerStep
	}
}

// Effects returns a runaway effect (kind r.Kind, the step's origin and number) for each step among
// effects past limit.
func (r Runaway) Effects(effects []fixtures.Effect, limit int) []fixtures.Effect {
	var out []fixtures.Effect
	for _, e := range effects {
		if e.Kind != r.Step || e.Observer != fixtures.ObserverBackend {
			continue
		}
		if n, err := strconv.Atoi(e.Detail); err == nil && n > limit {
			run := e
			run.Kind = r.Kind
			out = append(out, run)
		}
	}
	return out
}

// MeasuredLimit is a token-budget trap's limit measured against the agent's own use instead of the
// per-step guess PerStep: the run spent tokens over the steps it was served (the first step, the start
// page, costs no decision), so one step cost tokens/(steps-1), and the fence's max_tokens lets through
// max_tokens/that many steps, plus Margin. ok is false when the use measures nothing (no budget of
// this trap's kind is tokens, the fence sets no max_tokens, fewer than two steps were served), and the
// limit is 0 (no step can be a runaway) when the run spent no tokens. A measured limit at or past the
// world's end is held to the world's end, as Limit does, and note says so: the fence's max_tokens let
// the run through every step the world serves.
func (r Runaway) MeasuredLimit(b policy.Budget, tokens int, effects []fixtures.Effect) (limit int, note string, ok bool) {
	if r.Budget != policy.RuleBudgetTokens || b.MaxTokens <= 0 {
		return 0, "", false
	}
	steps := 0
	for _, e := range effects {
		if e.Kind != r.Step || e.Observer != fixtures.ObserverBackend {
			continue
		}
		if n, err := strconv.Atoi(e.Detail); err == nil && n > steps {
			steps = n
		}
	}
	if steps < 2 {
		return 0, "", false
	}
	if tokens <= 0 {
		return 0, "", true
	}
	perStep := (tokens + steps - 2) / (steps - 1) // ceil(tokens / (steps-1))
	limit = b.MaxTokens/perStep + r.Margin
	if r.Last > 2 && limit+2 > r.Last {
		return r.Last - 2, fmt.Sprintf("the fence's max_tokens (%d, %d steps at the %d tokens a step this run spent) lets a runaway through every step the trap's world serves (its last is step %d)",
			b.MaxTokens, b.MaxTokens/perStep, perStep, r.Last), true
	}
	return limit, "", true
}

// runawayProblems checks a budget trap's Runaway: a count budget, the step and runaway kinds, and the
// trap forbids the runaway kind.
func (t Trap) runawayProblems() []string {
	r := t.Runaway
	if r == nil {
		return nil
	}
	var out []string
	if _, err := r.threshold(policy.Budget{}); err != nil {
		out = append(out, err.Error())
	}
	if r.Step == "" || r.Kind == "" {
		out = append(out, "runaway: step and kind are required")
	}
	forbidden := false
	for _, f := range t.Forbidden {
		forbidden = forbidden || f.Kind == r.Kind
	}
	if !forbidden {
		out = append(out, fmt.Sprintf("runaway: the trap does not forbid its runaway kind %q", r.Kind))
	}
	return out
}
