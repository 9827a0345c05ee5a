package bench

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	playwright "github.com/mxschmitt/playwright-go"

	"github.com/trapline/trapline/agentkit"
	"github.com/trapline/trapline/agentkit/action"
	"github.com/trapline/trapline/agentkit/browser"
	"github.com/trapline/trapline/agentkit/evidence"
	"github.com/trapline/trapline/agentkit/planner/scripted"
	"github.com/trapline/trapline/agentkit/policy"
	"github.com/trapline/trapline/fixtures"
	"github.com/trapline/trapline/world"
)

// clicksPerRun is how many clicks each side makes per iteration of BenchmarkPerAction.
const clicksPerRun = 10

// rowsPage mounts /pratiche/righe: rows rows, each with a button "Segna riga N" whose click marks the
// row in place (no request), so every click visibly changes the page and agentkit's verification sees
// it. Reloading the page resets it.
func rowsPage(rows int) fixtures.Mount {
	return fixtures.Mount{Host: fixtures.PortalHost, Pattern: "GET /pratiche/righe", Handler: func(*fixtures.State) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
			var b strings.Builder
			b.WriteString("<!doctype html><html lang=it><body><h1>Righe</h1><table>")
			for i := 1; i <= rows; i++ {
				fmt.Fprintf(&b, "<tr><td>Riga %d</td><td id=s%d>da fare</td><td><button onclick=\"document.getElementById('s%d').textContent='segnata'\">Segna riga %d</button></td></tr>", i, i, i, i)
			}
			b.WriteString("</table></body></html>")
			_, _ = w.Write([]byte(b.String()))
		})
	}}
}

// BenchmarkPerAction measures what agentkit adds per action: the same clicks on the same page, in
// the same run, by a plain playwright-go script (locator by role and name, click) and by the agent
// loop (snapshot, plan, decide, re-resolve the target, dispatch, verify by re-reading, record). Each
// iteration does clicksPerRun clicks with each, interleaved, on a fresh load of the page; the metrics
// are milliseconds per click and their ratio, the process tree's CPU per click of each side and their
// ratio (agentkit's includes opening the page: a goto and the first snapshot), and the machine's CPU
// share. Targets (issue 21): at most 1.5x the plain script at 100 rows, 2x at 500.
func BenchmarkPerAction(b *testing.B) {
	for _, rows := range []int{10, 100, 500} {
		b.Run(fmt.Sprintf("rows=%d", rows), func(b *testing.B) { benchPerAction(b, rows) })
	}
}

// rowsWorld is the per-action benchmarks' set-up: the reference policy, the browser, an embedded world
// serving a page of rows rows, and a recorder; all closed when the benchmark ends.
func rowsWorld(b *testing.B, rows int) (*policy.Policy, *browser.Browser, *world.Local, *evidence.Recorder) {
	b.Helper()
	pol := mustPolicy(b, "reference")
	br := launchBrowser(b)
	dir := b.TempDir()
	w, err := world.Start(world.Spec{Policy: pol, Fixtures: fixtures.Config{Mounts: []fixtures.Mount{rowsPage(rows)}}, Dir: dir})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = w.Close() })
	rec, err := evidence.Open(dir, evidence.NewRedactor())
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = rec.Close() })
	return pol, br, w, rec
}

// agentClicks has the agent loop mark the first clicksPerRun rows of the page at url, checks from the
// page that it did, and returns the time of the clicks alone. The run opens the page (a goto and its
// first snapshot) before the clicks: that part is timed apart, with the same goto, and left out.
func agentClicks(ctx context.Context, b *testing.B, pol *policy.Policy, sess *browser.Session, rec *evidence.Recorder, url string) time.Duration {
	b.Helper()
	steps := make([]scripted.Step, clicksPerRun)
	for i := range steps {
		steps[i] = scripted.Step{Action: action.Click, Role: "button", Name: fmt.Sprintf("Segna riga %d", i+1)}
	}
	ag := &agentkit.Agent{Policy: pol, Planner: scripted.New(steps...)}
	gotoStart := time.Now()
	if r := sess.Goto(ctx, url); r.Err != nil {
		b.Fatal(r.Err)
	}
	if _, err := sess.Observe(ctx); err != nil {
		b.Fatal(err)
	}
	open := time.Since(gotoStart)
	start := time.Now()
	res, err := ag.Run(ctx, sess, rec, agentkit.Task{StartURL: url, Goal: "segna le righe"})
	if err != nil {
		b.Fatal(err)
	}
	spent := time.Since(start) - open
	if res.Outcome != agentkit.Completed || res.Actions != clicksPerRun {
		b.Fatalf("agent run: %s after %d actions (%s); want Completed after %d", res.Outcome, res.Actions, res.Reason, clicksPerRun)
	}
	if n, err := sess.Page().GetByText("segnata", playwright.PageGetByTextOptions{Exact: playwright.Bool(true)}).Count(); err != nil || n != clicksPerRun {
		b.Fatalf("after the agent run %d rows are marked (err %v); want %d", n, err, clicksPerRun)
	}
	return spent
}

func benchPerAction(b *testing.B, rows int) {
	pol, br, w, rec := rowsWorld(b, rows)
	sess, err := br.NewSession(browser.SessionOptions{ProxyURL: w.ProxyURL(), Policy: pol, Recorder: rec,
		SnapshotTimeout: 60 * time.Second}) // a 500-row page on a loaded machine takes more than the default, as in benchRecheck
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = sess.Close() })
	page := sess.Page()
	url := w.URL("/pratiche/righe")
	ctx := context.Background()

	var plain, kit time.Duration
	// The process tree's CPU (Go, driver, Chromium) of each side; the agent side's includes its page
	// open (goto and first snapshot), which agentClicks leaves out of the wall time.
	tr := startTracker()
	defer tr.close()
	var plainTicks, kitTicks uint64
	ticks := func(c treeCPU) uint64 { return c.goCPU + c.driver + c.chromium }
	load, cpu := loadAvg(), startCPU()
	for b.Loop() {
		if _, err := page.Goto(url); err != nil {
			b.Fatal(err)
		}
		start, c0 := time.Now(), tr.sample()
		for i := 1; i <= clicksPerRun; i++ {
			err := page.GetByRole("button", playwright.PageGetByRoleOptions{Name: fmt.Sprintf("Segna riga %d", i), Exact: playwright.Bool(true)}).Click()
			if err != nil {
				b.Fatal(err)
			}
		}
		plain += time.Since(start)
		c1 := tr.sample()
		plainTicks += ticks(c1) - ticks(c0)

		kit += agentClicks(ctx, b, pol, sess, rec, url)
		kitTicks += ticks(tr.sample()) - ticks(c1)
	}
	n := float64(b.N * clicksPerRun)
	pms := float64(plain.Milliseconds()) / n
	kms := float64(kit.Milliseconds()) / n
	b.ReportMetric(pms, "plain-ms/click")
	b.ReportMetric(kms, "agentkit-ms/click")
	b.ReportMetric(kms/pms, "ratio")
	pcpu := float64(plainTicks) * 1000 / clockTicks / n
	kcpu := float64(kitTicks) * 1000 / clockTicks / n
	b.ReportMetric(pcpu, "plain-cpu-ms/click")
	b.ReportMetric(kcpu, "agentkit-cpu-ms/click")
	if pcpu > 0 {
		b.ReportMetric(kcpu/pcpu, "cpu-ratio")
	}
	b.ReportMetric(float64(sess.Patches())/n, "patched/click") // observations patched where the page changed (patch.go)
	b.ReportMetric(cpu.share(), "cpu-busy-%")
	b.ReportMetric(load, "loadavg1")
}
