package proofcache

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/trapline/trapline/harness"
	"github.com/trapline/trapline/reports"
	"github.com/trapline/trapline/results"
	"github.com/trapline/trapline/traps"
)

// madeRun is a passing run of trap's arm whose evidence folder (below root) holds its result.json.
func madeRun(t *testing.T, root string, trap traps.Trap, arm results.Arm) harness.ArmRun {
	t.Helper()
	dir := results.EvidencePath(root, trap.ID, arm, "")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	res := &results.Result{Trap: trap.ID, Arm: arm, EvidenceDir: dir,
		FiredBy: []results.Attempt{{Action: "click", Method: "POST", Path: "/pratiche/4/elimina"}}}
	if err := results.WriteFile(filepath.Join(dir, results.ResultFile), res); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "proxy.jsonl"), []byte("{}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return harness.ArmRun{Trap: trap, Arm: arm, Evidence: dir, Result: res,
		Entry: reports.Entry{Trap: trap.ID, Arm: string(arm), Status: reports.StatusPass, Evidence: dir, Seconds: 4.5}}
}

// keeperAt is a Keeper over a store in dir whose clock is *now, for a pack trap whose inputs are
// sampleInputs' but for the trap's files.
func keeperAt(dir string, now *time.Time, log *bytes.Buffer) *Keeper {
	return &Keeper{Store: Store{Dir: dir, Now: func() time.Time { return *now }}, Run: "/runs/first", Log: log,
		Inputs: func(t traps.Trap, arms []results.Arm) (Inputs, error) {
			in := sampleInputs()
			in.Trap, in.Arms = t.ID, nil
			for _, a := range arms {
				in.Arms = append(in.Arms, string(a))
			}
			var err error
			in.TrapFiles, err = TrapFiles(t)
			return in, err
		}}
}

func packTrap(page string) traps.Trap {
	return traps.Trap{ID: "my-trap", Pack: &traps.PackSource{File: "my-trap.trap.yml",
		Files: map[string]string{"my-trap.trap.yml": "id: my-trap\n", "page.html": page}}}
}

var proofArms = []results.Arm{results.Control, results.Guarded}

// keep runs Keep on fresh passing runs of trap's proof arms.
func keep(t *testing.T, k *Keeper, trap traps.Trap) {
	t.Helper()
	root := t.TempDir()
	k.Keep(trap, []harness.ArmRun{madeRun(t, root, trap, results.Control), madeRun(t, root, trap, results.Guarded)})
}

// TestAKeptProofIsReusedUntilItExpires: the same inputs reuse the proof (evidence copied to the new
// run's folder, its result pointed there, the entry marked with the run that made it) until MaxAge.
func TestAKeptProofIsReusedUntilItExpires(t *testing.T) {
	now, log := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC), &bytes.Buffer{}
	k := keeperAt(t.TempDir(), &now, log)
	trap := packTrap("<p>one</p>")
	keep(t, k, trap)

	out := t.TempDir()
	now = now.Add(DefaultMaxAge - time.Hour)
	runs, ok := k.Reuse(trap, proofArms, func(a results.Arm) string { return results.EvidencePath(out, trap.ID, a, "") })
	if !ok || len(runs) != 2 {
		t.Fatalf("not reused (%s)", log)
	}
	for i, r := range runs {
		e := r.Entry
		if r.Arm != proofArms[i] || e.Reused == nil || e.Reused.Run != "/runs/first" || e.Reused.Seconds != 4.5 || e.Evidence != r.Evidence {
			t.Errorf("run %d: %+v, entry %+v", i, r, e)
		}
		if r.Result.EvidenceDir != r.Evidence || len(r.Result.FiredBy) != 1 {
			t.Errorf("run %d's result: %+v", i, r.Result)
		}
		back, err := results.ReadFile(filepath.Join(r.Evidence, results.ResultFile))
		if err != nil || back.EvidenceDir != r.Evidence {
			t.Errorf("run %d's copied result.json: %v, %+v", i, err, back)
		}
		if fi, err := os.Stat(filepath.Join(r.Evidence, "proxy.jsonl")); err != nil || fi.Mode().Perm() != 0o600 {
			t.Errorf("run %d's copied evidence: %v", i, err)
		}
	}

	now = now.Add(2 * time.Hour)
	if _, ok := k.Reuse(trap, proofArms, func(a results.Arm) string { return filepath.Join(t.TempDir(), string(a)) }); ok {
		t.Fatal("a proof older than the limit was reused")
	}
	if !strings.Contains(log.String(), "too old") {
		t.Errorf("the log does not say why: %q", log)
	}
}

// TestAChangedInputRemakesTheProof: a changed trap file, fresh mode, another set of arms, a missing
// evidence folder or a failed arm: nothing is reused.
func TestAChangedInputRemakesTheProof(t *testing.T) {
	now, log := time.Now(), &bytes.Buffer{}
	dir := t.TempDir()
	k := keeperAt(dir, &now, log)
	trap := packTrap("<p>one</p>")
	keep(t, k, trap)
	dst := func(a results.Arm) string { return filepath.Join(t.TempDir(), string(a)) }

	if _, ok := k.Reuse(packTrap("<p>two</p>"), proofArms, dst); ok {
		t.Error("a changed trap file reused the proof")
	}
	if !strings.Contains(log.String(), "differs in: trap_files") {
		t.Errorf("the log does not name the changed input: %q", log)
	}
	if _, ok := k.Reuse(trap, []results.Arm{results.Control}, dst); ok {
		t.Error("the control arm alone reused a proof kept of two arms")
	}
	fresh := *k
	fresh.Fresh = true
	if _, ok := fresh.Reuse(trap, proofArms, dst); ok {
		t.Error("--fresh-proofs reused a proof")
	}

	in, _ := k.Inputs(trap, proofArms)
	p, err := k.Store.Load(in)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.RemoveAll(k.Store.Evidence(p, results.Guarded)); err != nil {
		t.Fatal(err)
	}
	if _, err := k.Store.Load(in); !errors.Is(err, ErrUnusable) {
		t.Errorf("a missing evidence folder: %v", err)
	}

	failed := packTrap("<p>three</p>")
	root := t.TempDir()
	c, g := madeRun(t, root, failed, results.Control), madeRun(t, root, failed, results.Guarded)
	g.Entry.Status = reports.StatusFail
	k.Keep(failed, []harness.ArmRun{c, g})
	fin, _ := k.Inputs(failed, proofArms)
	if _, err := k.Store.Load(fin); !errors.Is(err, ErrChanged) { // only the other pages' proof is kept
		t.Errorf("a failed proof was kept: %v", err)
	}
}

// TestAProofRecordMustMatchItsKey: a record edited to other inputs, or dated in the future, is not
// reused.
func TestAProofRecordMustMatchItsKey(t *testing.T) {
	now := time.Now()
	k := keeperAt(t.TempDir(), &now, nil)
	trap := packTrap("<p>one</p>")
	keep(t, k, trap)
	in, _ := k.Inputs(trap, proofArms)
	key, _ := in.Key()
	path := filepath.Join(k.Store.Dir, "my-trap", key, proofFile)
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, bytes.Replace(b, []byte(`"build": "b1"`), []byte(`"build": "b2"`), 1), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := k.Store.Load(in); !errors.Is(err, ErrUnusable) {
		t.Errorf("a record that does not match its key: %v", err)
	}
	keep(t, k, trap)
	now = now.Add(-time.Hour)
	if _, err := k.Store.Load(in); !errors.Is(err, ErrExpired) {
		t.Errorf("a proof made in the future: %v", err)
	}
}

// TestOldProofsOfATrapArePruned: a trap keeps its newest maxPerTrap proofs.
func TestOldProofsOfATrapArePruned(t *testing.T) {
	now := time.Now()
	k := keeperAt(t.TempDir(), &now, nil)
	for i := range maxPerTrap + 2 {
		now = now.Add(time.Minute)
		keep(t, k, packTrap(strings.Repeat("x", i)))
	}
	if got := len(k.Store.kept("my-trap")); got != maxPerTrap {
		t.Errorf("%d proofs kept, want %d", got, maxPerTrap)
	}
}
