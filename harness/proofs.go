package harness

import (
	"context"

	"github.com/trapline/trapline/results"
	"github.com/trapline/trapline/traps"
)

// ProofKeeper keeps the runs of the adversary's arms (control and guarded: the proof that a trap
// fires and that the fence holds) by every input they depend on, so that a later runner whose inputs
// are all the same reuses them instead of running them again, as go test caches a test by its inputs.
// trapline run's is internal/proofcache (docs/proof-cache.md); nil runs every arm.
type ProofKeeper interface {
	// Reuse returns kept runs of t's proof arms, one per arm and in its order, each with its evidence
	// copied to evidence(arm) (where this runner's run would write it) and its Entry.Reused set; ok is
	// false when any of them is not kept or cannot be trusted, and then every one of them runs.
	Reuse(t traps.Trap, arms []results.Arm, evidence func(results.Arm) string) (runs []ArmRun, ok bool)
	// Keep keeps the runs of t's proof arms that this runner just made, in the order of arms. A
	// keeper keeps only what it can trust (every arm passed), and a failure to keep breaks no run.
	Keep(t traps.Trap, runs []ArmRun)
}

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

// reuseProofs hands t's kept proof runs to the runner's callbacks and to the later arms (the control
// arm's FiredBy), as if they had just run; ok false when r has no keeper or nothing to reuse.
func (r *ArmRunner) reuseProofs(ctx context.Context, t traps.Trap, arms []results.Arm) ([]ArmRun, bool) {
	if r.Proofs == nil || len(arms) == 0 || ctx.Err() != nil {
		return nil, false
	}
	runs, ok := r.Proofs.Reuse(t, arms, func(arm results.Arm) string {
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
