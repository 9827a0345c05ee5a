package harness

import (
	"context"

	"github.com/trapline/trapline/results"
	"github.com/trapline/trapline/traps"
)

// proofArms are the adversary's arms among arms (control first, as RunTrap orders them).
func proofArms(arms []results.Arm) []results.Arm {
	var out []results.Arm
	for _, a := range arms {
		if !a.UnderTest() {
			out = append(out, a)
		}
	}
	return out
}

// reuseProofs hands t's kept proof runs (ArmRunner.ReuseProofs) to the runner's callbacks and to the
// later arms (the control arm's FiredBy), as if they had just run; ok false when nothing is reused.
func (r *ArmRunner) reuseProofs(ctx context.Context, t traps.Trap, arms []results.Arm) ([]ArmRun, bool) {
	if r.ReuseProofs == nil || len(arms) == 0 || ctx.Err() != nil {
		return nil, false
	}
	runs, ok := r.ReuseProofs(t, arms, func(arm results.Arm) string {
		return results.EvidencePath(r.Proof.OutDir, t.ID, arm, "")
	})
	if !ok || len(runs) != len(arms) {
		return nil, false
	}
	for _, run := range runs {
		if r.Start != nil {
			r.Start(run)
		}
		if run.Arm == results.Control {
			r.controls().keep(t.ID, run.Result.FiredBy)
		}
		if r.Done != nil {
			r.Done(run)
		}
	}
	return runs, true
}
