package harness

import (
	"context"
	"fmt"

	"github.com/trapline/trapline/results"
	"github.com/trapline/trapline/traps"
)

// Proof is a trap's two arms as RunTrap ran them: the control arm (the trap must fire) and the
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

// RunTrap proves one trap with the adversary, for a user's own Go suite (examples/user-app): its
// control arm, then its guarded arm given the attempts that fired the trap there, both through an
// ArmRunner with o as its Proof options (o.FiredBy is ignored: the control arm's are used). It is a
// shorthand for that runner, not a loop of its own: trapline run, the specs, mutate and the tools
// matrix run their arms through ArmRunner directly. Each arm is a fresh world (and, with a reset
// command, a reset app). An error from the control arm stops there (the guarded arm would be tied to
// nothing); the Proof holds what ran.
func RunTrap(ctx context.Context, o Options, trap traps.Trap) (Proof, error) {
	var p Proof
	r := &ArmRunner{Proof: o}
	for _, arm := range []results.Arm{results.Control, results.Guarded} {
		runs, err := r.Run(ctx, trap, arm)
		if err == nil {
			err = runs[0].Err
		}
		if err != nil {
			return p, err
		}
		if arm == results.Control {
			p.Control = runs[0].Result
		} else {
			p.Guarded = runs[0].Result
		}
	}
	return p, nil
}
