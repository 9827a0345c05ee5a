package bench

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/trapline/trapline/agentkit"
	"github.com/trapline/trapline/agentkit/act"
	"github.com/trapline/trapline/agentkit/action"
	"github.com/trapline/trapline/agentkit/browser"
	"github.com/trapline/trapline/agentkit/evidence"
	"github.com/trapline/trapline/agentkit/observe"
	"github.com/trapline/trapline/agentkit/planner/scripted"
	"github.com/trapline/trapline/fixtures"
	"github.com/trapline/trapline/world"
)

// phaseProfile accumulates wall time, this tree's CPU by kind and the machine's CPU per phase.
type phaseProfile struct {
	tr    *cpuTracker
	order []string
	wall  map[string]time.Duration
	cpu   map[string]treeCPU
	busy  map[string]float64 // machine-wide busy jiffies (all processes, /proc/stat), summed
}

func newPhaseProfile(tr *cpuTracker) *phaseProfile {
	return &phaseProfile{tr: tr, wall: map[string]time.Duration{}, cpu: map[string]treeCPU{}, busy: map[string]float64{}}
}

// measure runs f as phase name and adds what it cost.
func (p *phaseProfile) measure(name string, f func()) {
	if _, ok := p.wall[name]; !ok {
		p.order = append(p.order, name)
	}
	c0, m0, t0 := p.tr.sample(), startCPU(), time.Now()
	f()
	wall, c1, m1 := time.Since(t0), p.tr.sample(), startCPU()
	p.wall[name] += wall
	c := p.cpu[name]
	c.goCPU += c1.goCPU - c0.goCPU
	c.driver += c1.driver - c0.driver
	c.chromium += c1.chromium - c0.chromium
	p.cpu[name] = c
	p.busy[name] += float64(m1.busy - m0.busy)
}

// profDriver is a Session whose Observe, Goto and Act are measured as phases; everything else (the
// facts inspector, the navigation counter) is the Session's own.
type profDriver struct {
	*browser.Session
	p *phaseProfile
}

func (d profDriver) Observe(ctx context.Context) (o *observe.Observation, err error) {
	d.p.measure("snapshot (loop)", func() { o, err = d.Session.Observe(ctx) })
	return o, err
}

func (d profDriver) Goto(ctx context.Context, url string) (r act.Result) {
	d.p.measure("goto", func() { r = d.Session.Goto(ctx, url) })
	return r
}

func (d profDriver) Act(ctx context.Context, obs *observe.Observation, a action.Action, target observe.Node) (r act.Result) {
	d.p.measure("act (re-resolve, dispatch, verify snapshot)", func() { r = d.Session.Act(ctx, obs, a, target) })
	return r
}

// BenchmarkArmProfile shows where an arm's CPU goes, per phase and per process kind (Go, the
// Playwright driver, Chromium), from /proc: an arm built from the harness's parts on the 100-row page
// of BenchmarkPerAction: world start, browser context with page and trace, the agent loop (goto,
// snapshots, 10 clicks, each re-resolved, dispatched and verified), session close (the trace is
// written), world close; the browser's launch and close once per benchmark. Every iteration is one arm.
// The table goes to the test log (-v); metrics give each phase's share of the tree's CPU.
// The trace detail is the session default (TRAPLINE_TRACE selects another).
func BenchmarkArmProfile(b *testing.B) {
	pol := mustPolicy(b, "reference")
	tr := startTracker()
	defer tr.close()
	p := newPhaseProfile(tr)
	var br *browser.Browser
	var err error
	p.measure("browser launch (once)", func() { br, err = browser.Launch(browser.Options{Environ: os.Environ()}) })
	if err != nil {
		launchFailed(b, "", err)
	}
	mount := rowsPage(100)
	url := ""
	load := loadAvg()
	cpu := startCPU()
	arms := 0
	for b.Loop() {
		dir := b.TempDir()
		var w *world.Local
		p.measure("world start", func() {
			w, err = world.Start(world.Spec{Policy: pol, Fixtures: fixtures.Config{Mounts: []fixtures.Mount{mount}}, Dir: dir})
		})
		if err != nil {
			b.Fatal(err)
		}
		url = w.URL("/pratiche/righe")
		rec, err := evidence.Open(dir, evidence.NewRedactor())
		if err != nil {
			b.Fatal(err)
		}
		var sess *browser.Session
		p.measure("session open (context, page, trace start)", func() {
			sess, err = br.NewSession(browser.SessionOptions{ProxyURL: w.ProxyURL(), Policy: pol, Recorder: rec, Trace: true})
		})
		if err != nil {
			b.Fatal(err)
		}
		steps := make([]scripted.Step, clicksPerRun)
		for i := range steps {
			steps[i] = scripted.Step{Action: action.Click, Role: "button", Name: fmt.Sprintf("Segna riga %d", i+1)}
		}
		ag := &agentkit.Agent{Policy: pol, Planner: scripted.New(steps...)}
		var res agentkit.Result
		res, err = ag.Run(context.Background(), profDriver{Session: sess, p: p}, rec, agentkit.Task{StartURL: url, Goal: "segna le righe"})
		if err != nil {
			b.Fatal(err)
		}
		if res.Outcome != agentkit.Completed || res.Actions != clicksPerRun {
			b.Fatalf("agent run: %s after %d actions (%s)", res.Outcome, res.Actions, res.Reason)
		}
		p.measure("session close (trace stop and write, context close)", func() { err = sess.Close() })
		if err != nil {
			b.Fatal(err)
		}
		p.measure("evidence close", func() { err = rec.Close() })
		if err != nil {
			b.Fatal(err)
		}
		p.measure("world close", func() { err = w.Close() })
		if err != nil {
			b.Fatal(err)
		}
		arms++
	}
	p.measure("browser close (once)", func() { err = br.Close() })
	if err != nil {
		b.Fatal(err)
	}
	var total uint64
	for _, c := range p.cpu {
		total += c.goCPU + c.driver + c.chromium
	}
	perArm := func(name string) float64 { // the browser's launch and close happen once, not per arm
		if strings.HasSuffix(name, "(once)") {
			return 1
		}
		return float64(max(arms, 1))
	}
	ms := func(ticks uint64, name string) float64 { return float64(ticks) * 1000 / clockTicks / perArm(name) }
	var tbl strings.Builder
	fmt.Fprintf(&tbl, "per arm (%d arms; the browser's launch and close: once, in all), load %.1f:\n", arms, load)
	fmt.Fprintf(&tbl, "| phase | wall ms | Go CPU ms | driver CPU ms | Chromium CPU ms | share of the tree's CPU |\n|---|---|---|---|---|---|\n")
	for _, name := range p.order {
		c := p.cpu[name]
		sum := c.goCPU + c.driver + c.chromium
		share := 0.0
		if total > 0 {
			share = 100 * float64(sum) / float64(total)
		}
		fmt.Fprintf(&tbl, "| %s | %.0f | %.0f | %.0f | %.0f | %.1f%% |\n", name, float64(p.wall[name].Milliseconds())/perArm(name),
			ms(c.goCPU, name), ms(c.driver, name), ms(c.chromium, name), share)
		key := strings.ReplaceAll(strings.TrimSpace(strings.SplitN(name, "(", 2)[0]), " ", "-")
		b.ReportMetric(share, key+"-cpu-%")
		b.ReportMetric(ms(sum, name), key+"-cpu-ms/arm")
	}
	var g, d, c uint64
	for _, x := range p.cpu {
		g, d, c = g+x.goCPU, d+x.driver, c+x.chromium
	}
	fmt.Fprintf(&tbl, "| all, per arm | | %.0f | %.0f | %.0f | 100%% |\n", ms(g, ""), ms(d, ""), ms(c, ""))
	b.Log("\n" + tbl.String())
	if total > 0 {
		b.ReportMetric(100*float64(c)/float64(total), "chromium-cpu-%")
		b.ReportMetric(100*float64(d)/float64(total), "driver-cpu-%")
		b.ReportMetric(100*float64(g)/float64(total), "go-cpu-%")
	}
	b.ReportMetric(cpu.share(), "cpu-busy-%")
	b.ReportMetric(load, "loadavg1")
}
