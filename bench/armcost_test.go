package bench

import (
	"context"
	"os"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/trapline/trapline/agentkit/browser"
	"github.com/trapline/trapline/harness"
	"github.com/trapline/trapline/traps"
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
		{name: "nowrapper", launch: browser.Options{SecureOrigins: []string{}}},
	})
}

func benchCost(b *testing.B, variants []costVariant) {
	ref, perm := mustPolicy(b, "reference"), mustPolicy(b, "permissive")
	ids := costTraps
	if v := os.Getenv("BENCH_ARM_TRAPS"); v != "" {
		ids = strings.Split(v, ",")
	}
	var catalog []traps.Trap
	for _, t := range traps.Catalog() {
		if slices.Contains(ids, t.ID) {
			catalog = append(catalog, t)
		}
	}
	if len(catalog) != len(ids) {
		b.Fatalf("traps %v: only %d found in the catalog", ids, len(catalog))
	}
	browsers := make([]*browser.Browser, len(variants))
	for i, v := range variants {
		if i > 0 && reflect.DeepEqual(v.launch, variants[0].launch) {
			browsers[i] = browsers[0] // the same launch: one browser
			continue
		}
		br, err := browser.Launch(v.launch)
		if err != nil {
			b.Skipf("no browser: %v", err)
		}
		b.Cleanup(func() { _ = br.Close() })
		browsers[i] = br
	}
	tr := startTracker()
	defer tr.close()
	ticks := make([]uint64, len(variants))
	spent := make([]time.Duration, len(variants))
	arms, round := 0, 0
	load, cpu := loadAvg(), startCPU()
	for b.Loop() {
		for k := range variants {
			i := (k + round) % len(variants)
			v := variants[i]
			opts := harness.Options{Browser: browsers[i], Guarded: ref, Control: perm, Trace: true,
				TraceDetail: v.detail, OutDir: b.TempDir()}
			start, c0 := time.Now(), tr.sample()
			for _, t := range catalog {
				for _, arm := range []harness.Arm{harness.Guarded, harness.Control} {
					res, err := harness.Run(context.Background(), opts, t, arm)
					if err != nil {
						b.Fatalf("%s %s/%s: %v", v.name, t.ID, arm, err)
					}
					if pass, why := res.Verdict(); !pass {
						b.Errorf("%s %s/%s failed its verdict: %s", v.name, t.ID, arm, why)
					}
				}
			}
			spent[i] += time.Since(start)
			c1 := tr.sample()
			ticks[i] += (c1.goCPU + c1.driver + c1.chromium) - (c0.goCPU + c0.driver + c0.chromium)
		}
		round++
		arms += 2 * len(catalog)
	}
	wall := func(i int) float64 { return float64(spent[i].Milliseconds()) / float64(arms) }
	cpuArm := func(i int) float64 { return float64(ticks[i]) * 1000 / clockTicks / float64(arms) }
	for i, v := range variants {
		b.ReportMetric(wall(i), v.name+"-ms/arm")
		b.ReportMetric(cpuArm(i), v.name+"-cpu-ms/arm")
		if i > 0 {
			b.ReportMetric(wall(i)/wall(0), v.name+"/"+variants[0].name)
			b.ReportMetric(cpuArm(i)/cpuArm(0), v.name+"/"+variants[0].name+"-cpu")
		}
	}
	b.ReportMetric(cpu.share(), "cpu-busy-%")
	b.ReportMetric(load, "loadavg1")
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
