package bench

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/trapline/trapline/agentkit/browser"
	"github.com/trapline/trapline/harness"
	"github.com/trapline/trapline/internal/agenttools"
	"github.com/trapline/trapline/results"
	"github.com/trapline/trapline/traps"
)

// toolsCellTrap is the trap of BenchmarkAgentToolsCell's cells: a destructive click, which every
// tool lets through and only the proxy's reference policy holds.
const toolsCellTrap = "decoy-delete"

// toolsCellFlags is the flag set of the cells: the tool's strictest fence plus policies/reference.yml
// at trapline's proxy (chrome-devtools-mcp's make test cell).
const toolsCellFlags = agenttools.FlagsProxy

// toolsCellTools are the tools BenchmarkAgentToolsCell runs by default; BENCH_TOOLS (comma
// separated, e.g. playwright-mcp,chrome-devtools-mcp,agent-browser) replaces them.
var toolsCellTools = []string{"playwright-mcp", "chrome-devtools-mcp"}

// BenchmarkAgentToolsCell measures one agent-tools cell end to end as make test's agent-tools specs
// run it (specs/agent_tools_test.go: harness.ArmRunner, the black-box arm, the tool's pinned command
// started for the cell, the adversary acting as the model, the observers judging, the cell checked
// against docs/agent-tools.json), for each tool on decoy-delete with its strictest fence and the
// proxy's reference policy, and beside it the same trap's guarded agentkit arm (the reference).
//
// Each iteration runs the cell twice, interleaved, the order rotating: with trapline's Chromium
// shared by the process's cells (browser.SharedCDP, a fresh browser context per cell: the specs'
// setting) and with a Chromium launched for the cell (harness's default without SharedCDP). Reported:
// s and cpu-s (the whole process tree: Go, the tool's Node.js or binary, every Chromium) as the
// median over the b.N cells of the shared setting, per-run-s and per-run-cpu-s of the other, their
// ratio, and the machine's load. A cell other than the pinned one fails the benchmark.
//
//	go test -run '^$' -bench AgentToolsCell -benchtime 3x ./bench
func BenchmarkAgentToolsCell(b *testing.B) {
	t, err := traps.Lookup(toolsCellTrap)
	if err != nil {
		b.Fatal(err)
	}
	pinned, err := agenttools.ReadMatrix(filepath.Join("..", "docs", "agent-tools.json"))
	if err != nil {
		b.Fatal(err)
	}
	tools := toolsCellTools
	if v := os.Getenv("BENCH_TOOLS"); v != "" {
		tools = strings.Split(v, ",")
	}
	configs := agenttools.Configs(filepath.Join("..", agenttools.ToolsDir))
	for _, tool := range tools {
		i := slices.IndexFunc(configs, func(c agenttools.Config) bool { return c.Tool == tool && c.FlagSet == toolsCellFlags })
		if i < 0 {
			b.Fatalf("BENCH_TOOLS: no %s config %q in internal/agenttools", toolsCellFlags, tool)
		}
		c := configs[i]
		want, ok := pinned.Cells[t.ID][c.Name()]
		if !ok {
			b.Fatalf("docs/agent-tools.json: no %s cell for %s", t.ID, c.Name())
		}
		b.Run(tool, func(b *testing.B) { benchToolCell(b, t, c, c.Agent(), want) })
		if tool == "playwright-mcp" && os.Getenv("BENCH_TOOLS_CDP") == "1" {
			// The lever measured: Playwright MCP driving trapline's shared Chromium (a fresh context
			// behind the world's proxy) over CDP instead of launching its own, with the same fence.
			cmd := slices.Clone(c.Command()[:2])
			cmd = append(cmd, "--cdp-endpoint", "${TRAPLINE_CDP_URL}")
			cmd = append(cmd, strings.Fields(c.Fence)...)
			agent := &agenttools.MCP{AgentName: "playwright-mcp-cdp-" + strings.ReplaceAll(c.FlagSet, "+", "-"), Command: cmd}
			b.Run(tool+"-cdp", func(b *testing.B) { benchToolCell(b, t, c, agent, want) })
		}
	}
	b.Run("agentkit", func(b *testing.B) { benchAgentkitArm(b, t) })
}

// benchToolCell runs config c's cell on t per iteration, with a shared and with a per-cell browser.
func benchToolCell(b *testing.B, t traps.Trap, c agenttools.Config, agent harness.Agent, want agenttools.Cell) {
	if _, err := os.Stat(toolProgram(c)); err != nil {
		b.Skipf("%s is not installed (make setup: npm ci in tools/): %v", c.Tool, err)
	}
	ctx := context.Background()
	shared, err := browser.LaunchSharedCDP(ctx, browser.CDPOptions{Environ: os.Environ(), Log: sharedLog(b)})
	if err != nil {
		launchFailed(b, "", err)
	}
	b.Cleanup(func() { _ = shared.Close() })
	ref := mustPolicy(b, "reference")
	names := []string{"shared", "per-run"}
	tr := startTracker()
	defer tr.close()
	walls, cpus := make([][]float64, len(names)), make([][]float64, len(names))
	phases := make([]map[string][]float64, len(names))
	for i := range phases {
		phases[i] = map[string][]float64{}
	}
	load, machine := loadAvg(), startCPU()
	round := 0
	for b.Loop() {
		for k := range names {
			v := (k + round) % len(names)
			opts := harness.Options{Environ: os.Environ(), OutDir: b.TempDir(), AgentTimeout: 2 * time.Minute}
			if c.ProxyPolicy {
				opts.BlackboxPolicy = ref
			}
			if names[v] == "shared" {
				opts.SharedCDP = shared
			}
			start, c0 := time.Now(), tr.sample()
			runs, err := (&harness.ArmRunner{UnderTest: opts, Agent: agent}).Run(ctx, t, results.Blackbox)
			wall, c1 := time.Since(start), tr.sample()
			if err != nil {
				b.Fatalf("%s %s (%s browser): %v", c.Name(), t.ID, names[v], err)
			}
			got := agenttools.Classify(runs[0].Result, runs[0].Err)
			if cellClass(got.Result) != cellClass(want.Result) {
				b.Fatalf("%s %s (%s browser): pinned %s (%s), now %s (%s)", c.Name(), t.ID, names[v], want.Result, want.Why, got.Result, got.Why)
			}
			walls[v] = append(walls[v], wall.Seconds())
			cpus[v] = append(cpus[v], float64(ticksOf(c1)-ticksOf(c0))/clockTicks)
			for name, sec := range cellPhases(b, runs[0].Result, start, start.Add(wall)) {
				phases[v][name] = append(phases[v][name], sec)
			}
		}
		round++
	}
	b.ReportMetric(median(walls[0]), "s")
	b.ReportMetric(median(cpus[0]), "cpu-s")
	b.ReportMetric(median(walls[1]), "per-run-s")
	b.ReportMetric(median(cpus[1]), "per-run-cpu-s")
	for v, name := range names {
		prefix := ""
		if v > 0 {
			prefix = name + "-"
		}
		for phase, secs := range phases[v] {
			b.ReportMetric(median(secs), prefix+phase+"-s")
		}
	}
	b.ReportMetric(median(walls[0])/median(walls[1]), "shared/per-run")
	b.ReportMetric(median(cpus[0])/median(cpus[1]), "shared/per-run-cpu")
	b.ReportMetric(machine.share(), "cpu-busy-%")
	b.ReportMetric(load, "loadavg1")
}

// benchAgentkitArm runs t's guarded arm with the reference agent (agentkit, the reference policy, one
// browser for the benchmark as the catalog's specs share one): the cells' reference.
func benchAgentkitArm(b *testing.B, t traps.Trap) {
	br := launchBrowser(b)
	ref, perm := mustPolicy(b, "reference"), mustPolicy(b, "permissive")
	tr := startTracker()
	defer tr.close()
	var walls, cpus []float64
	load, machine := loadAvg(), startCPU()
	for b.Loop() {
		opts := harness.Options{Browser: br, Guarded: ref, Control: perm, OutDir: b.TempDir()}
		start, c0 := time.Now(), tr.sample()
		res, err := harness.Run(context.Background(), opts, t, results.Guarded)
		wall, c1 := time.Since(start), tr.sample()
		if err != nil {
			b.Fatalf("%s/guarded: %v", t.ID, err)
		}
		if pass, why := res.Passed(); !pass {
			b.Fatalf("%s/guarded failed its verdict: %s", t.ID, why)
		}
		walls = append(walls, wall.Seconds())
		cpus = append(cpus, float64(ticksOf(c1)-ticksOf(c0))/clockTicks)
	}
	b.ReportMetric(median(walls), "s")
	b.ReportMetric(median(cpus), "cpu-s")
	b.ReportMetric(machine.share(), "cpu-busy-%")
	b.ReportMetric(load, "loadavg1")
}

// cellPhases splits one cell's wall time [start, end] at its tool-calls.jsonl records (each stamped
// when written, after its tool call): "start" up to the first record (world start, the browser, the
// tool's process and MCP handshake, the first navigation and page read, in which a tool with a
// browser of its own launches it), "loop" from the first to the last (the adversary's steps, each a
// tool call or two), "close" after it (the tool's exit, the browser context, the world, the observers).
func cellPhases(b *testing.B, res *results.Result, start, end time.Time) map[string]float64 {
	b.Helper()
	f, err := os.ReadFile(filepath.Join(res.EvidenceDir, "agent", agenttools.CallsFile))
	if err != nil {
		b.Fatalf("the cell's tool calls: %v", err)
	}
	var first, last time.Time
	for line := range strings.Lines(string(f)) {
		var r struct {
			At time.Time `json:"at"`
		}
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			b.Fatalf("%s: %v", agenttools.CallsFile, err)
		}
		if first.IsZero() {
			first = r.At
		}
		last = r.At
	}
	if first.IsZero() {
		return map[string]float64{}
	}
	return map[string]float64{"start": first.Sub(start).Seconds(), "loop": last.Sub(first).Seconds(), "close": end.Sub(last).Seconds()}
}

func ticksOf(c treeCPU) uint64 { return c.goCPU + c.driver + c.chromium }

// median of xs (0 for none).
func median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	if n := len(s); n%2 == 0 {
		return (s[n/2-1] + s[n/2]) / 2
	}
	return s[len(s)/2]
}

// cellClass is a matrix cell's safety class: "held" for every held:<attribution>, else the cell (the
// agent-tools specs' gate: which fence a held cell names can change with timing).
func cellClass(result string) string {
	class, _, _ := strings.Cut(result, ":")
	return class
}

// toolProgram is the config's program: its first file argument (node <script>) or the binary.
func toolProgram(c agenttools.Config) string {
	cmd := c.Command()
	if len(cmd) > 1 && filepath.IsAbs(cmd[1]) {
		return cmd[1]
	}
	return cmd[0]
}

// sharedLog is the shared browser's log: a file in the benchmark's temporary folder.
func sharedLog(b *testing.B) *os.File {
	f, err := os.Create(filepath.Join(b.TempDir(), "chromium-shared.log"))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = f.Close() })
	return f
}
