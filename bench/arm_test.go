package bench

import (
	"context"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/trapline/trapline/agentkit/browser"
	"github.com/trapline/trapline/harness"
	"github.com/trapline/trapline/results"
	"github.com/trapline/trapline/traps"
)

// armTraps are the traps whose arms BenchmarkArmBrowser and BenchmarkArmTrace time: short ones of
// different kinds (a click on a decoy, a popup, a download, a WebSocket). BENCH_ARM_TRAPS (comma
// separated IDs) replaces them.
var armTraps = []string{"decoy-delete", "popup", "exe-download", "websocket-exfil"}

// armVariant is one way of running an arm: a browser and a trace setting.
type armVariant struct {
	name   string
	exe    string // the Chromium binary
	trace  bool
	detail browser.TraceDetail
}

// BenchmarkArmBrowser measures the cost of one arm (world start, browser context, agent run, close,
// observers) with Debian's chromium --headless against chromium-headless-shell, side by side: each
// iteration runs both arms of every armTraps trap with each browser, interleaved, the order rotating.
// Both browsers get the same flags (the netlink shim, the sink proxy, --no-sandbox) and a full trace.
// Reported: ms per arm for each, the ratio shell/chromium, and the machine's load (see cpuShare).
func BenchmarkArmBrowser(b *testing.B) {
	if _, err := browser.Executable(browser.HeadlessShell, os.Environ()); err != nil {
		b.Skipf("no headless shell: %v (apt-get install chromium-headless-shell)", err)
	}
	benchArms(b, []armVariant{
		{name: "chromium", exe: browser.DefaultChromium, trace: true},
		{name: "shell", exe: browser.HeadlessShell, trace: true},
	})
}

// BenchmarkArmTrace measures what Playwright tracing costs per arm, side by side on one browser (the
// default one, see browser.Executable): no trace, the action and network log only, the log with the
// screencast, and the full trace (screencast and DOM snapshots), interleaved as in BenchmarkArmBrowser.
func BenchmarkArmTrace(b *testing.B) {
	exe, err := browser.Executable("", os.Environ())
	if err != nil {
		b.Skip(err)
	}
	benchArms(b, []armVariant{
		{name: "full", exe: exe, trace: true, detail: browser.TraceFull},
		{name: "screenshots", exe: exe, trace: true, detail: browser.TraceScreenshots},
		{name: "log", exe: exe, trace: true, detail: browser.TraceLog},
		{name: "off", exe: exe},
	})
}

func benchArms(b *testing.B, variants []armVariant) {
	ref, perm := mustPolicy(b, "reference"), mustPolicy(b, "permissive")
	catalog := armCatalog(b, armTraps)
	browsers := map[string]*browser.Browser{}
	for _, v := range variants {
		if browsers[v.exe] != nil {
			continue
		}
		br, err := browser.Launch(browser.Options{Environ: os.Environ(), ExecutablePath: v.exe})
		if err != nil {
			launchFailed(b, v.exe, err)
		}
		b.Cleanup(func() { _ = br.Close() })
		browsers[v.exe] = br
	}
	names := make([]string, len(variants))
	for i, v := range variants {
		names[i] = v.name
	}
	runArmAB(b, catalog, names, func(i int) harness.Options {
		v := variants[i]
		return harness.Options{Browser: browsers[v.exe], Guarded: ref, Control: perm, Trace: v.trace,
			TraceDetail: v.detail, OutDir: b.TempDir()}
	})
}

// armCatalog is the catalog's traps named by BENCH_ARM_TRAPS (comma-separated), or else by ids.
func armCatalog(b *testing.B, ids []string) []traps.Trap {
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
	return catalog
}

// runArmAB runs both arms of every trap in catalog once per variant and iteration, with the options
// opts gives variant i, interleaved with the order rotating (no variant always goes first), and
// reports each variant's wall and process-tree CPU (Go, driver, Chromium; profile_test.go) per arm,
// and its ratio to the first variant. An arm that fails its verdict fails the benchmark.
func runArmAB(b *testing.B, catalog []traps.Trap, names []string, opts func(i int) harness.Options) {
	tr := startTracker()
	defer tr.close()
	ticks := make([]uint64, len(names))
	spent := make([]time.Duration, len(names))
	arms, round := 0, 0
	load, cpu := loadAvg(), startCPU()
	for b.Loop() {
		for k := range names {
			i := (k + round) % len(names)
			o := opts(i)
			start, c0 := time.Now(), tr.sample()
			for _, t := range catalog {
				for _, arm := range []results.Arm{results.Guarded, results.Control} {
					res, err := harness.Run(context.Background(), o, t, arm)
					if err != nil {
						b.Fatalf("%s %s/%s: %v", names[i], t.ID, arm, err)
					}
					if pass, why := res.Passed(); !pass {
						b.Errorf("%s %s/%s failed its verdict: %s", names[i], t.ID, arm, why)
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
	for i, name := range names {
		b.ReportMetric(wall(i), name+"-ms/arm")
		b.ReportMetric(cpuArm(i), name+"-cpu-ms/arm")
		if i > 0 {
			b.ReportMetric(wall(i)/wall(0), name+"/"+names[0])
			b.ReportMetric(cpuArm(i)/cpuArm(0), name+"/"+names[0]+"-cpu")
		}
	}
	b.ReportMetric(cpu.share(), "cpu-busy-%")
	b.ReportMetric(load, "loadavg1")
}
