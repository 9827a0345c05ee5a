package bench

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/trapline/trapline/harness"
	"github.com/trapline/trapline/internal/proofcache"
	"github.com/trapline/trapline/results"
	"github.com/trapline/trapline/traps"
)

// BenchmarkProofReuse measures what the proof cache saves a gate (issue 54.2, docs/proof-cache.md):
// each iteration runs the adversary's arms (control, guarded) of every armTraps trap through the arm
// runner with a fresh proof store, then again with the store the first pass filled, as the second of
// two identical trapline run gates does. Reported: the ms each pass spent in trapline's own arms and
// their ratio (target: the second at most 25% of the first). A reused proof copies its evidence; a
// pass that reuses nothing, or an arm that fails its verdict, fails the benchmark.
func BenchmarkProofReuse(b *testing.B) {
	ref, perm := mustPolicy(b, "reference"), mustPolicy(b, "permissive")
	br := launchBrowser(b)
	catalog := armCatalog(b, armTraps)
	arms := []results.Arm{results.Control, results.Guarded}
	var first, second time.Duration
	for b.Loop() {
		keeper := &proofcache.Keeper{Store: proofcache.Store{Dir: b.TempDir()}, Run: "bench", Inputs: benchProofInputs}
		for pass, spent := range []*time.Duration{&first, &second} {
			reused := 0
			runner := &harness.ArmRunner{ReuseProofs: keeper.Reuse, KeepProofs: keeper.Keep, Proof: harness.Options{Environ: os.Environ(), Browser: br, Guarded: ref,
				Control: perm, Trace: true, OutDir: b.TempDir()},
				Done: func(run harness.ArmRun) {
					if run.Entry.Status != "pass" {
						b.Errorf("pass %d: %s/%s: %s", pass+1, run.Trap.ID, run.Arm, run.Entry.Why)
					}
					if run.Entry.Reused != nil {
						reused++
					}
				}}
			start := time.Now()
			for _, t := range catalog {
				if _, err := runner.RunTrap(context.Background(), t, arms); err != nil {
					b.Fatal(err)
				}
			}
			*spent += time.Since(start)
			if want := pass * len(arms) * len(catalog); reused != want {
				b.Fatalf("pass %d reused %d arms, want %d", pass+1, reused, want)
			}
		}
	}
	b.ReportMetric(float64(first.Milliseconds())/float64(b.N), "first-ms")
	b.ReportMetric(float64(second.Milliseconds())/float64(b.N), "second-ms")
	ratio := float64(second) / float64(first)
	b.ReportMetric(ratio, "second/first")
	if ratio > 0.25 {
		b.Errorf("the second gate spent %.0f%% of the first's time in trapline's own arms, over the 25%% target", ratio*100)
	}
}

// benchProofInputs are fixed inputs but for the trap: the benchmark measures the store, not the key.
func benchProofInputs(t traps.Trap, arms []results.Arm) (proofcache.Inputs, error) {
	in := proofcache.Inputs{Trap: t.ID, GuardedPolicy: "reference", ControlPolicy: "permissive", Build: "bench",
		Chromium: "bench", Driver: "bench", World: "embedded", Settings: "trace=on", StorageState: "none"}
	for _, a := range arms {
		in.Arms = append(in.Arms, string(a))
	}
	var err error
	in.TrapFiles, err = proofcache.TrapFiles(t)
	return in, err
}
