package proofcache

import (
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/trapline/trapline/harness"
	"github.com/trapline/trapline/reports"
	"github.com/trapline/trapline/results"
	"github.com/trapline/trapline/traps"
)

// ErrNotHashable is Keeper.Inputs' error for a trap whose proof depends on what trapline cannot hash
// (the user's own app: a trap with a start host, a state probe or a reset): its proof is never kept.
var ErrNotHashable = errors.New("its proof depends on the user's own app, which trapline cannot hash")

// Keeper is the arm runner's proof keeper over a Store: its Reuse and Keep are
// harness.ArmRunner.ReuseProofs and KeepProofs.
type Keeper struct {
	Store Store
	// Inputs are the inputs of t's proof arms; ErrNotHashable (or any error) keeps the trap's proof
	// out of the store, run every time.
	Inputs func(t traps.Trap, arms []results.Arm) (Inputs, error)
	// Fresh re-makes every proof (--fresh-proofs, TRAPLINE_PROOFS=fresh) and keeps the new ones.
	Fresh bool
	// Run is this run's output folder, recorded as the maker of what it keeps.
	Run string
	// Log gets one line per kept proof that was not reused and per proof that could not be kept; nil
	// is quiet.
	Log io.Writer
}

// Reuse returns the kept runs of t's proof arms, their evidence copied to evidence(arm) and their
// entries marked reused (harness.ArmRunner.ReuseProofs); ok false makes them again.
func (k *Keeper) Reuse(t traps.Trap, arms []results.Arm, evidence func(results.Arm) string) ([]harness.ArmRun, bool) {
	if k.Fresh {
		return nil, false
	}
	in, err := k.Inputs(t, arms)
	if err != nil {
		k.logf("trapline: proof of %s made fresh: %v\n", t.ID, err)
		return nil, false
	}
	p, err := k.Store.Load(in)
	if err != nil {
		if !errors.Is(err, ErrNotKept) { // a trap's first proof says nothing
			k.logf("trapline: proof of %s made again: %v\n", t.ID, err)
		}
		return nil, false
	}
	var runs []harness.ArmRun
	for i, arm := range arms {
		began := time.Now()
		dst := evidence(arm)
		res, err := k.Store.Restore(p, arm, dst)
		if err != nil {
			k.logf("trapline: proof of %s made again: %v\n", t.ID, err)
			return nil, false
		}
		e := p.Arms[i]
		e.Reused = &reports.ReusedProof{Run: p.Run, Made: p.Made, Key: p.Key, Seconds: e.Seconds}
		e.Evidence, e.Seconds = dst, time.Since(began).Seconds()
		runs = append(runs, harness.ArmRun{Trap: t, Arm: arm, Evidence: dst, Result: res, Entry: e})
	}
	return runs, true
}

// Keep keeps the runs of t's proof arms (harness.ArmRunner.KeepProofs), only when every one of them
// passed: a proof that failed, broke or was interrupted is made again next time.
func (k *Keeper) Keep(t traps.Trap, runs []harness.ArmRun) {
	arms := make([]results.Arm, 0, len(runs))
	entries := make([]reports.Entry, 0, len(runs))
	evidence := make([]string, 0, len(runs))
	for _, r := range runs {
		if r.Err != nil || r.Result == nil || r.Entry.Status != reports.StatusPass || r.Arm.UnderTest() {
			return
		}
		arms, entries, evidence = append(arms, r.Arm), append(entries, r.Entry), append(evidence, r.Evidence)
	}
	in, err := k.Inputs(t, arms)
	if err != nil {
		return
	}
	if err := k.Store.Save(Proof{Inputs: in, Run: k.Run, Arms: entries}, evidence); err != nil {
		k.logf("trapline: %v (it is made again next time)\n", err)
	}
}

func (k *Keeper) logf(format string, a ...any) {
	if k.Log != nil {
		fmt.Fprintf(k.Log, format, a...)
	}
}
