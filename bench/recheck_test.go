package bench

import (
	"context"
	"fmt"
	"testing"
	"time"

	playwright "github.com/mxschmitt/playwright-go"

	"github.com/trapline/trapline/agentkit/browser"
)

// BenchmarkPerActionRecheck is BenchmarkPerAction with the pre-dispatch re-read both ways, side by
// side: a plain playwright-go script, agentkit re-reading the whole page before every dispatch (A,
// browser.SessionOptions.FullReread, the behaviour before issue 21) and agentkit re-reading only the
// target when the page's change counter is unchanged (B, the default). The three run interleaved on
// the same page of the same world and browser, the order rotating each iteration. Reported: ms per
// click of each (wall time and the CPU time of this process's tree: Go, the driver and Chromium, which
// on a loaded machine is the figure that means something), the ratios, how many of B's clicks took
// the cheap path, the machine's load and its system-wide CPU share.
func BenchmarkPerActionRecheck(b *testing.B) {
	for _, rows := range []int{100, 500} {
		b.Run(fmt.Sprintf("rows=%d", rows), func(b *testing.B) { benchRecheck(b, rows) })
	}
}

func benchRecheck(b *testing.B, rows int) {
	pol, br, w, rec := rowsWorld(b, rows)
	session := func(full bool) *browser.Session {
		s, err := br.NewSession(browser.SessionOptions{ProxyURL: w.ProxyURL(), Policy: pol, Recorder: rec, FullReread: full,
			SnapshotTimeout: 60 * time.Second}) // a 500-row page on a loaded machine takes more than the default
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { _ = s.Close() })
		return s
	}
	sessions := []*browser.Session{session(true), session(false)}
	url := w.URL("/pratiche/righe")
	ctx := context.Background()

	plainRun := func() time.Duration {
		page := sessions[0].Page()
		if _, err := page.Goto(url); err != nil {
			b.Fatal(err)
		}
		start := time.Now()
		for i := 1; i <= clicksPerRun; i++ {
			if err := page.GetByRole("button", playwright.PageGetByRoleOptions{Name: fmt.Sprintf("Segna riga %d", i), Exact: playwright.Bool(true)}).Click(); err != nil {
				b.Fatal(err)
			}
		}
		return time.Since(start)
	}
	kitRun := func(sess *browser.Session) time.Duration { return agentClicks(ctx, b, pol, sess, rec, url) }
	tr := startTracker()
	defer tr.close()
	sides := []func() time.Duration{plainRun, func() time.Duration { return kitRun(sessions[0]) }, func() time.Duration { return kitRun(sessions[1]) }}
	spent := make([]time.Duration, len(sides))
	ticks := make([]uint64, len(sides)) // the tree's CPU (Go, driver, Chromium) spent by each side
	load := loadAvg()
	cpu := startCPU()
	round := 0
	for b.Loop() {
		for k := range sides {
			i := (k + round) % len(sides)
			c0 := tr.sample()
			spent[i] += sides[i]()
			c1 := tr.sample()
			ticks[i] += (c1.goCPU + c1.driver + c1.chromium) - (c0.goCPU + c0.driver + c0.chromium)
		}
		round++
	}
	n := float64(b.N * clicksPerRun)
	per := func(i int) float64 { return float64(spent[i].Microseconds()) / 1000 / n }
	b.ReportMetric(per(0), "plain-ms/click")
	b.ReportMetric(per(1), "full-ms/click")
	b.ReportMetric(per(2), "recheck-ms/click")
	b.ReportMetric(per(1)/per(0), "full/plain")
	b.ReportMetric(per(2)/per(0), "recheck/plain")
	b.ReportMetric(per(2)/per(1), "recheck/full")
	cpuMS := func(i int) float64 { return float64(ticks[i]) * 1000 / clockTicks / n }
	b.ReportMetric(cpuMS(0), "plain-cpu-ms/click")
	b.ReportMetric(cpuMS(1), "full-cpu-ms/click")
	b.ReportMetric(cpuMS(2), "recheck-cpu-ms/click")
	b.ReportMetric(cpuMS(2)/cpuMS(1), "recheck/full-cpu")
	b.ReportMetric(cpuMS(2)/cpuMS(0), "recheck/plain-cpu")
	b.ReportMetric(cpuMS(1)/cpuMS(0), "full/plain-cpu")
	// Every click of the recheck side must have taken the cheap path, or the comparison is void.
	b.ReportMetric(float64(sessions[1].TargetRechecks())/n, "rechecked/click")
	b.ReportMetric(cpu.share(), "cpu-busy-%")
	b.ReportMetric(load, "loadavg1")
}
