package bench

import (
	"context"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/trapline/trapline/agentkit/browser"
	"github.com/trapline/trapline/harness"
	"github.com/trapline/trapline/internal/proctree"
	"github.com/trapline/trapline/results"
	"github.com/trapline/trapline/traps"
	"github.com/trapline/trapline/traps/scenario"
)

// peakSampler samples the memory of this process's tree (proctree.Memory: Go, the Playwright driver,
// Chromium and its renderers) every 20 ms until stopped and keeps each figure's peak.
type peakSampler struct {
	stop  chan struct{}
	done  sync.WaitGroup
	mu    sync.Mutex
	peak  proctree.Mem
	alone int // the peak of proctree.Alone, read every aloneEvery samples (it reads every mapping)
}

// aloneEvery spaces out the proctree.Alone reads: every 10th sample, 200 ms.
const aloneEvery = 10

func startSampler() *peakSampler {
	s := &peakSampler{stop: make(chan struct{})}
	s.done.Add(1)
	go func() {
		defer s.done.Done()
		t := time.NewTicker(20 * time.Millisecond)
		defer t.Stop()
		for i := 0; ; i++ {
			if m, err := proctree.Memory(0); err == nil {
				s.mu.Lock()
				s.peak = s.peak.Max(m)
				s.mu.Unlock()
			}
			if i%aloneEvery == 0 {
				if a, err := proctree.Alone(0); err == nil {
					s.mu.Lock()
					s.alone = max(s.alone, a)
					s.mu.Unlock()
				}
			}
			select {
			case <-s.stop:
				return
			case <-t.C:
			}
		}
	}()
	return s
}

// Stop ends the sampling and returns the peaks (each figure's own: the driver's peak and Chromium's
// need not fall on the same sample as the total's) and the peak of the alone estimate.
func (s *peakSampler) Stop() (proctree.Mem, int) {
	close(s.stop)
	s.done.Wait()
	return s.peak, s.alone
}

// BenchmarkAgentRunMemory measures the peak memory of one agent run, browser included: Chromium's
// launch, one guarded run of a trap through the harness (world, proxy, browser context, tracing, the
// agent loop), and the browser's close, sampled every 20 ms over the whole process tree. Each iteration
// is a fresh browser. Reported in MB: the peak proportional set size (the honest total), its peak per
// kind (Go, the Node.js driver, Chromium with its renderers) and the peak sum of resident set sizes
// (which counts shared pages in every process), USS (private pages only) and proctree.Alone's
// estimate of PSS on a machine where nobody else runs Chromium or Node.js (PSS reads lower on a busy
// one: it splits pages with other people's processes); and the tree's CPU seconds per run, so a
// lever that saves memory shows what it costs. The memory levers (memLevers) run decoy-delete again, in the same
// run, with the driver's V8 heap tuned through NODE_OPTIONS.
func BenchmarkAgentRunMemory(b *testing.B) {
	for _, id := range []string{"decoy-delete", "update-20-pratiche"} {
		b.Run(id, func(b *testing.B) { benchMemory(b, id) })
	}
	for _, l := range memLevers {
		b.Run("decoy-delete+"+l.name, func(b *testing.B) {
			b.Setenv("NODE_OPTIONS", strings.TrimSpace(os.Getenv("NODE_OPTIONS")+" "+l.nodeOptions))
			benchMemory(b, "decoy-delete")
		})
	}
}

// memLevers are cheap settings that might cut the driver's memory without changing what it does: V8
// flags of the Playwright driver's Node.js (it inherits this process's environment). NODE_OPTIONS takes
// only the flags in process.allowedNodeEnvironmentFlags: --optimize-for-size and --lite-mode are
// refused there (node exits, and the launch fails).
var memLevers = []struct{ name, nodeOptions string }{
	{"driver-semi-space-1MB", "--max-semi-space-size=1"},
}

func benchMemory(b *testing.B, id string) {
	ref, perm := mustPolicy(b, "reference"), mustPolicy(b, "permissive")
	trap, ok := findTrap(id)
	if !ok {
		b.Fatalf("no trap %q in the catalog or the scenario", id)
	}
	var peak proctree.Mem
	alone := 0
	load, cpu := loadAvg(), startCPU()
	tr := startTracker()
	defer tr.close()
	c0 := tr.sample()
	for b.Loop() {
		s := startSampler()
		br, err := browser.Launch(browser.Options{Environ: os.Environ()})
		if err != nil {
			s.Stop()
			launchFailed(b, "", err)
		}
		res, err := harness.Run(context.Background(), harness.Options{Browser: br, Guarded: ref, Control: perm, OutDir: b.TempDir(), Trace: true}, trap, results.Guarded)
		closeErr := br.Close()
		m, a := s.Stop()
		if err != nil || closeErr != nil {
			b.Fatalf("run: %v; close: %v", err, closeErr)
		}
		if pass, why := res.Passed(); !pass {
			b.Fatalf("%s guarded arm failed, so the run is not representative: %s", id, why)
		}
		peak, alone = peak.Max(m), max(alone, a)
	}
	c1 := tr.sample()
	ticks := (c1.goCPU + c1.driver + c1.chromium) - (c0.goCPU + c0.driver + c0.chromium)
	b.ReportMetric(float64(ticks)/clockTicks/float64(b.N), "cpu-s/run")
	mb := func(kb int) float64 { return float64(kb) / 1024 }
	b.ReportMetric(mb(peak.PSS), "peak-pss-MB")
	b.ReportMetric(mb(peak.RSS), "peak-rss-sum-MB")
	b.ReportMetric(mb(peak.USS), "peak-uss-MB")
	b.ReportMetric(mb(alone), "peak-alone-MB")
	b.ReportMetric(mb(peak.GoPSS), "go-peak-pss-MB")
	b.ReportMetric(mb(peak.DriverPSS), "driver-peak-pss-MB")
	b.ReportMetric(mb(peak.ChromePSS), "chromium-peak-pss-MB")
	b.ReportMetric(float64(peak.ChromiumProcesses), "chromium-processes")
	b.ReportMetric(cpu.share(), "cpu-busy-%")
	b.ReportMetric(load, "loadavg1")
}

// findTrap returns a catalog trap or the scenario by id.
func findTrap(id string) (traps.Trap, bool) {
	for _, t := range append(traps.Catalog(), scenario.Trap()) {
		if t.ID == id {
			return t, true
		}
	}
	return traps.Trap{}, false
}
