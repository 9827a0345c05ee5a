package bench

import (
	"context"
	"os"
	"reflect"
	"testing"
	"time"

	"github.com/trapline/trapline/agentkit/browser"
	"github.com/trapline/trapline/harness"
)

// costTraps are the traps whose arms BenchmarkArmCost runs by default: a sample across categories,
// the long budget traps included (BENCH_ARM_TRAPS, comma separated IDs, replaces them).
var costTraps = []string{"decoy-delete", "stale-ref", "load-more", "endless-register", "token-burn",
	"session-boundary", "hidden-injection", "exe-download"}

// costVariant is one way of running an arm: how the browser is launched and what the trace records.
type costVariant struct {
	name   string
	launch browser.Options
	detail browser.TraceDetail
}

// BenchmarkArmCost measures the CPU of one arm (Go, the Playwright driver and every Chromium process,
// from /proc: see cpuTracker) before and after issue 21's third pass, side by side: "before" traces
// each arm with the screencast (TraceScreenshots, the default until then), "after" with the default
// (TraceDefault: the action, console and network log). Each iteration runs both arms of every trap
// with each variant, interleaved, the order rotating; every verdict must pass with both. Reported: CPU
// ms and wall ms per arm of each, and the after/before ratios, with the machine's load.
//
//	go test -run '^$' -bench ArmCost -benchtime 2x ./bench
func BenchmarkArmCost(b *testing.B) {
	benchCost(b, []costVariant{
		{name: "before", detail: browser.TraceScreenshots},
		{name: "after", detail: browser.TraceDefault},
	})
}

// BenchmarkArmRendererWrapper measures what the headless shell's renderer wrapper (secureorigins.go:
// a --renderer-cmd-prefix, so renderers start without the zygote) costs per arm: the default launch
// against one with no secure origins (no wrapper). Only for traps that need no secure context
// (BENCH_ARM_TRAPS; default decoy-delete, popup, exe-download): without the wrapper the
// service-worker traps do not fire.
func BenchmarkArmRendererWrapper(b *testing.B) {
	if os.Getenv("BENCH_ARM_TRAPS") == "" {
		b.Setenv("BENCH_ARM_TRAPS", "decoy-delete,popup,exe-download")
	}
	benchCost(b, []costVariant{
		{name: "wrapper"},
		{name: "nowrapper", launch: browser.Options{Environ: os.Environ(), SecureOrigins: []string{}}},
	})
}

func benchCost(b *testing.B, variants []costVariant) {
	ref, perm := mustPolicy(b, "reference"), mustPolicy(b, "permissive")
	catalog := armCatalog(b, costTraps)
	browsers := make([]*browser.Browser, len(variants))
	for i, v := range variants {
		if i > 0 && reflect.DeepEqual(v.launch, variants[0].launch) {
			browsers[i] = browsers[0] // the same launch: one browser
			continue
		}
		launch := v.launch
		if launch.Environ == nil {
			launch.Environ = os.Environ()
		}
		br, err := browser.Launch(launch)
		if err != nil {
			launchFailed(b, v.launch.ExecutablePath, err)
		}
		b.Cleanup(func() { _ = br.Close() })
		browsers[i] = br
	}
	names := make([]string, len(variants))
	for i, v := range variants {
		names[i] = v.name
	}
	runArmAB(b, catalog, names, func(i int) harness.Options {
		return harness.Options{Browser: browsers[i], Guarded: ref, Control: perm, Trace: true,
			TraceDetail: variants[i].detail, OutDir: b.TempDir()}
	})
}

// BenchmarkPerActionCounterReads is the per-click A/B of the cheap recheck's change-counter reads on
// the 100-row page of BenchmarkPerAction: A reads the counter before and after the target's re-read
// (browser.SessionOptions.CounterBeforeTarget, as before issue 21's third pass), B only after it (the
// default). Interleaved, the order rotating. Reported: CPU ms (the process tree's) and wall ms per
// click of each, counter reads per click, and how many clicks took the cheap path (1.0, or the
// comparison is void).
func BenchmarkPerActionCounterReads(b *testing.B) {
	pol, br, w, rec := rowsWorld(b, 100)
	session := func(before bool) *browser.Session {
		s, err := br.NewSession(browser.SessionOptions{ProxyURL: w.ProxyURL(), Policy: pol, Recorder: rec,
			CounterBeforeTarget: before, SnapshotTimeout: 60 * time.Second})
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { _ = s.Close() })
		return s
	}
	sessions := []*browser.Session{session(true), session(false)}
	names := []string{"before", "after"}
	url := w.URL("/pratiche/righe")
	ctx := context.Background()
	tr := startTracker()
	defer tr.close()
	spent := make([]time.Duration, 2)
	ticks := make([]uint64, 2)
	load, cpu := loadAvg(), startCPU()
	round := 0
	for b.Loop() {
		for k := range sessions {
			i := (k + round) % len(sessions)
			c0 := tr.sample()
			spent[i] += agentClicks(ctx, b, pol, sessions[i], rec, url)
			c1 := tr.sample()
			ticks[i] += (c1.goCPU + c1.driver + c1.chromium) - (c0.goCPU + c0.driver + c0.chromium)
		}
		round++
	}
	n := float64(b.N * clicksPerRun)
	for i, s := range sessions {
		b.ReportMetric(float64(spent[i].Microseconds())/1000/n, names[i]+"-ms/click")
		b.ReportMetric(float64(ticks[i])*1000/clockTicks/n, names[i]+"-cpu-ms/click")
		b.ReportMetric(float64(s.TargetRechecks())/n, names[i]+"-rechecked/click")
		b.ReportMetric(float64(s.CounterReads())/n, names[i]+"-counter-reads/click")
	}
	b.ReportMetric(float64(ticks[1])/float64(ticks[0]), "after/before-cpu")
	b.ReportMetric(cpu.share(), "cpu-busy-%")
	b.ReportMetric(load, "loadavg1")
}
