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
	if _, err := browser.Executable(browser.HeadlessShell); err != nil {
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
	exe, err := browser.Executable("")
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
	ids := armTraps
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
		b.Fatalf("armTraps %v: only %d found in the catalog", ids, len(catalog))
	}
	browsers := map[string]*browser.Browser{}
	for _, v := range variants {
		if browsers[v.exe] != nil {
			continue
		}
		br, err := browser.Launch(browser.Options{ExecutablePath: v.exe})
		if err != nil {
			b.Skipf("no browser %s: %v", v.exe, err)
		}
		b.Cleanup(func() { _ = br.Close() })
		browsers[v.exe] = br
	}
	tr := startTracker()
	defer tr.close()
	ticks := make([]uint64, len(variants)) // the process tree's CPU (Go, driver, Chromium), profile_test.go
	spent := make([]time.Duration, len(variants))
	arms := 0
	load := loadAvg()
	cpu := startCPU()
	round := 0
	for b.Loop() {
		for k := range variants {
			i := (k + round) % len(variants) // rotate the order, so no variant always goes first
			v := variants[i]
			opts := harness.Options{Browser: browsers[v.exe], Guarded: ref, Control: perm, Trace: v.trace,
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
	perArm := func(i int) float64 { return float64(spent[i].Milliseconds()) / float64(arms) }
	cpuArm := func(i int) float64 { return float64(ticks[i]) * 1000 / clockTicks / float64(arms) }
	for i, v := range variants {
		b.ReportMetric(perArm(i), v.name+"-ms/arm")
		b.ReportMetric(cpuArm(i), v.name+"-cpu-ms/arm")
		if i > 0 {
			b.ReportMetric(perArm(i)/perArm(0), v.name+"/"+variants[0].name)
			b.ReportMetric(cpuArm(i)/cpuArm(0), v.name+"/"+variants[0].name+"-cpu")
		}
	}
	b.ReportMetric(cpu.share(), "cpu-busy-%")
	b.ReportMetric(load, "loadavg1")
}
