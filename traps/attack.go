package traps

import (
	"context"
	"errors"
	"fmt"

	"github.com/trapline/trapline/agentkit/action"
	"github.com/trapline/trapline/agentkit/observe"
	"github.com/trapline/trapline/agentkit/planner"
	"github.com/trapline/trapline/agentkit/planner/scripted"
	"github.com/trapline/trapline/results"
)

// AttackPlanner is the planner of a trap's own attack script (t.Attack, a pack's attack:) for arm; the
// harness runs it in the adversary's arms (control, guarded) in place of the adversary: the moves the adversary would not make (choose an
// option, press a key, hover a row), by role and name. Its steps fail closed: a target that matches
// no element or several ends the script with an error, and the harness ends the arm broken with the
// reason (IsAttack), never a guess. One exception, the guarded arm: there a step whose target is
// missing ends the script with done, because the fence refusing an earlier step (a hover, the
// request of a submit) is what takes the target away; the guarded verdict still needs the expected
// guards to have refused the control arm's firing attempt, so stopping there cannot make it pass. A
// trap without an attack script has none: nil.
func AttackPlanner(t Trap, arm results.Arm) planner.Planner {
	if len(t.Attack) == 0 {
		return nil
	}
	return attack{p: scripted.New(t.Attack...), guarded: arm == results.Guarded}
}

// attack is the attack script's planner, marked so that IsAttack knows it.
type attack struct {
	p       *scripted.Planner
	guarded bool
}

// Next takes the script's next step (scripted.Planner), with the guarded arm's missing target
// ending the script (AttackPlanner).
func (a attack) Next(ctx context.Context, in planner.Input) (action.Action, error) {
	act, err := a.p.Next(ctx, in)
	if err != nil && a.guarded && errors.Is(err, observe.ErrNotFound) {
		return action.Action{Kind: action.Done, Reason: fmt.Sprintf("attack script stopped: %v (the fence refused an earlier step)", err)}, nil
	}
	if err != nil {
		return action.Action{}, fmt.Errorf("attack script: %w", err)
	}
	return act, nil
}

// IsAttack reports whether p is an AttackPlanner: a run of it whose script could not take a step is
// broken, never judged (the harness's rule, as for the diligent script).
func IsAttack(p planner.Planner) bool {
	_, ok := p.(attack)
	return ok
}
