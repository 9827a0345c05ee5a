package harness

import (
	"context"
	"testing"

	"github.com/trapline/trapline/reports"
	"github.com/trapline/trapline/results"
	"github.com/trapline/trapline/traps"
)

// fakeKeeper reuses what it holds and records what it is asked to keep.
type fakeKeeper struct {
	held   map[results.Arm]*results.Result
	asked  [][]results.Arm
	kept   int
	wheres []string
}

func (k *fakeKeeper) Reuse(t traps.Trap, arms []results.Arm, evidence func(results.Arm) string) ([]ArmRun, bool) {
	k.asked = append(k.asked, arms)
	var runs []ArmRun
	for _, a := range arms {
		res, ok := k.held[a]
		if !ok {
			return nil, false
		}
		k.wheres = append(k.wheres, evidence(a))
		runs = append(runs, ArmRun{Trap: t, Arm: a, Evidence: evidence(a), Result: res,
			Entry: reports.Entry{Trap: t.ID, Arm: string(a), Status: reports.StatusPass, Reused: &reports.ReusedProof{Run: "first"}}})
	}
	return runs, true
}

func (k *fakeKeeper) Keep(traps.Trap, []ArmRun) { k.kept++ }

// TestRunTrapReusesKeptProofs: a kept proof's arms are not run: their entries come back in order, the
// callbacks see them, and the control arm's attempts are handed to the trap's later arms.
func TestRunTrapReusesKeptProofs(t *testing.T) {
	fired := []results.Attempt{{Action: "click", Method: "POST", Path: "/pratiche/4/elimina"}}
	k := &fakeKeeper{held: map[results.Arm]*results.Result{
		results.Control: {Arm: results.Control, FiredBy: fired},
		results.Guarded: {Arm: results.Guarded},
	}}
	var done []results.Arm
	r := &ArmRunner{ReuseProofs: k.Reuse, KeepProofs: k.Keep, Proof: Options{OutDir: "/out"}, Done: func(run ArmRun) { done = append(done, run.Arm) }}
	trap := traps.Trap{ID: "decoy-delete"}
	entries, err := r.RunTrap(context.Background(), trap, []results.Arm{results.Guarded, results.Control})
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 2 || entries[0].Arm != "control" || entries[1].Arm != "guarded" || entries[0].Reused == nil {
		t.Fatalf("entries: %+v", entries)
	}
	if len(done) != 2 || len(k.asked) != 1 || len(k.asked[0]) != 2 || k.kept != 0 {
		t.Errorf("done %v, asked %v, kept %d", done, k.asked, k.kept)
	}
	if k.wheres[0] != results.EvidencePath("/out", trap.ID, results.Control, "") {
		t.Errorf("evidence put at %s", k.wheres[0])
	}
	if got := r.controls().FiredBy(trap.ID); len(got) != 1 || got[0] != fired[0] {
		t.Errorf("the later arms get FiredBy %v", got)
	}
}

// TestRunTrapAsksNoKeeperForAnAgentsArmsAlone: a trap run in an agent's arms alone (the benign twins)
// has no proof to reuse or keep.
func TestRunTrapAsksNoKeeperForAnAgentsArmsAlone(t *testing.T) {
	k := &fakeKeeper{}
	r := &ArmRunner{ReuseProofs: k.Reuse, KeepProofs: k.Keep}
	ctx, cancel := context.WithCancel(context.Background())
	cancel() // the fenced arm is not run: the runner stops before it
	if _, err := r.RunTrap(ctx, traps.Trap{ID: "decoy-delete"}, []results.Arm{results.Fenced}); err == nil {
		t.Fatal("a cancelled run ran")
	}
	if len(k.asked) != 0 || k.kept != 0 {
		t.Errorf("asked %v, kept %d", k.asked, k.kept)
	}
}
