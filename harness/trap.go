package harness

import (
	"context"
	"fmt"

	"github.com/trapline/trapline/results"
	"github.com/trapline/trapline/traps"
)

// Proof is a trap's two arms run in order by RunTrap: the control arm (the trap must fire) and the
// guarded arm (the fence must hold), each a Result with its probe readings as numbers (Result.Probes).
type Proof struct {
	Control, Guarded *results.Result
}

// Proved reports whether both arms passed their verdicts (the control arm fired, the guarded arm
// held), and why not when they did not.
func (p Proof) Proved() (bool, string) {
	for _, r := range []*results.Result{p.Control, p.Guarded} {
		if r == nil {
			return false, "an arm did not run"
		}
		if j := results.Judge(r); !j.Pass {
			return false, fmt.Sprintf("%s: %s", r.Arm, j.Reason)
		}
	}
	return true, ""
}

// RunTrap runs trap's control arm, then its guarded arm with the attempts that fired the trap in the
// control arm passed on (Options.FiredBy, overriding o's), so that the guarded arm credits a refusal
// only when it refused one of them: what `trapline run` does for each trap. Each arm is a fresh
// world (and, with a reset command, a reset app). An error from the control arm stops there (the
// guarded arm would be tied to nothing); the Proof holds what ran.
func RunTrap(ctx context.Context, o Options, trap traps.Trap) (Proof, error) {
	var p Proof
	control, err := Run(ctx, o, trap, results.Control)
	if err != nil {
		return p, err
	}
	p.Control = control
	o.FiredBy = control.FiredBy
	guarded, err := Run(ctx, o, trap, results.Guarded)
	if err != nil {
		return p, err
	}
	p.Guarded = guarded
	return p, nil
}
