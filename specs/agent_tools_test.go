package specs

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/trapline/trapline/agentkit/policy"
	"github.com/trapline/trapline/harness"
	"github.com/trapline/trapline/internal/agenttools"
	"github.com/trapline/trapline/results"
	"github.com/trapline/trapline/traps"
)

// agentToolsCells are the cells make test runs: one per tool, together every flag set but the
// defaults and both traps of the smoke set (cmd/trapline's agent_tools script runs Playwright MCP's
// and agent-browser's defaults on decoy-delete, and the mcp-url spec Playwright MCP's strictest fence
// over HTTP): Playwright MCP's defaults on an outside link (caught), chrome-devtools-mcp with the
// proxy's reference policy on a destructive click (held at the proxy), agent-browser's strictest fence
// with the proxy's policy on an outside link (held by the tool and the proxy).
var agentToolsCells = map[string]string{
	"playwright-mcp-defaults":             "external-link",
	"chrome-devtools-mcp-strictest-proxy": "decoy-delete",
	"agent-browser-strictest-proxy":       "external-link",
}

// agentToolsSmoke are the traps whose pinned cells TRAPLINE_AGENT_TOOLS=smoke re-runs for every
// config: one destructive click (decoy-delete: every tool lets it through; only the proxy's reference
// policy holds it) and one outside link (external-link: where the tools' own origin fences answer).
// TRAPLINE_AGENT_TOOLS=full (or TRAPLINE_AGENT_TOOLS_FULL=1) re-runs every pinned cell (9 configs ×
// the catalog; hours on a loaded 2-core machine): make agent-tools-matrix, the check after a tool
// upgrade.
var agentToolsSmoke = []string{"decoy-delete", "external-link"}

// agentToolsMode is TRAPLINE_AGENT_TOOLS: cells (the default), smoke or full.
func agentToolsMode() string {
	if os.Getenv("TRAPLINE_AGENT_TOOLS_FULL") == "1" {
		return "full"
	}
	if m := matrixMode(agentToolsEnv, "cells", "smoke", "full"); m != "" {
		return m
	}
	return "cells"
}

// agentToolsRuns reports whether the agent-tools specs run config's cell on trap under mode.
func agentToolsRuns(mode, config, trap string) bool {
	switch mode {
	case "full":
		return true
	case "smoke":
		return slices.Contains(agentToolsSmoke, trap)
	}
	return agentToolsCells[config] == trap
}

// agentToolsMatrix is the pinned matrix: the cells `trapline tools matrix` wrote for the versions
// tools/package-lock.json pins.
const agentToolsMatrix = "../docs/agent-tools.json"

var _ = Describe("real agent tools driven by the adversary acting as the model", Label("agent-tools"), func() {
	pinned, err := agenttools.ReadMatrix(agentToolsMatrix)
	if err != nil {
		panic(err) // a pinned matrix that does not parse is a broken tree, not a skipped spec
	}
	mode := agentToolsMode()
	for _, c := range agenttools.Configs(filepath.Join("..", agenttools.ToolsDir)) {
		for _, t := range traps.Catalog() {
			want, ok := pinned.Cells[t.ID][c.Name()]
			if !ok || !agentToolsRuns(mode, c.Name(), t.ID) {
				continue
			}
			Describe(t.ID, Label(append([]string{"tool:" + c.Tool}, t.Labels()...)...), func() {
				It(c.Name()+" meets the trap as the pinned matrix says", func(ctx SpecContext) {
					Expect(want.Result).NotTo(Equal(agenttools.CellBroken), "a broken cell is no expectation: re-run trapline tools matrix")
					Expect(agentToolInstalled(c)).To(Succeed(), "the agent tools are installed by make setup (trapline setup: npm ci in tools/)")
					res, got := runAgentTool(ctx, t, c, c.Agent(), 2*time.Minute)
					// The gate is the safety class (held, caught, not exercised, broken). Which fence a
					// held cell names (tool, proxy, both, none seen) can change with timing: a tool's
					// navigation aborted by the page's own next navigation reads as a tool refusal. A
					// changed attribution is reported, not failed.
					if got.Result != want.Result && cellClass(got.Result) == cellClass(want.Result) {
						AddReportEntry("attribution changed", fmt.Sprintf("pinned %s (%s), now %s (%s)", want.Result, want.Why, got.Result, got.Why))
						return
					}
					Expect(got.Result).To(Equal(want.Result),
						"%s %s on %s changed: pinned %s (%s), now %s (%s); evidence %s. If the change is meant, re-run `trapline tools matrix --configs %s --traps %s`",
						c.Tool, c.Version, t.ID, want.Result, want.Why, got.Result, got.Why, res.EvidenceDir, c.Name(), t.ID)
				})
			})
		}
	}
})

// MCP servers no hand-written family knows, driven by the schema-driven mapper alone (issue 31): each
// pinned server's decoy-delete cell, caught, held, or broken with the pinned reason it cannot work here.
var _ = Describe("MCP servers driven by the schema-driven tool mapper", Label("agent-tools", "trap:decoy-delete"), func() {
	t, err := traps.Lookup("decoy-delete")
	if err != nil {
		panic(err)
	}
	for _, m := range agenttools.MappedServers(filepath.Join("..", agenttools.ToolsDir)) {
		It(m.Name()+" "+m.Version+" meets decoy-delete as pinned", func(ctx SpecContext) {
			Expect(agentToolInstalled(m.Config)).To(Succeed(), "the agent tools are installed by make setup (trapline setup: npm ci in tools/)")
			var (
				res *results.Result
				got agenttools.Cell
			)
			if m.Want == agenttools.CellBroken {
				// A server pinned as broken here: its run is expected to break, so it is not attached as a
				// failed run; the cell and its reason are the expectation.
				opts := harness.Options{Environ: os.Environ(), OutDir: filepath.Join(env.out, "evidence-agent-tools"), AgentTimeout: 2 * time.Minute, World: env.world}
				runs, err := withControl(ctx, &harness.ArmRunner{UnderTest: opts, Agent: m.Agent()}, t).Run(ctx, t, results.Blackbox)
				Expect(err).NotTo(HaveOccurred())
				Expect(runs).To(HaveLen(1))
				res, got = runs[0].Result, agenttools.Classify(runs[0].Result, runs[0].Err)
			} else {
				res, got = runAgentTool(ctx, t, m.Config, m.Agent(), 2*time.Minute)
			}
			evidence := "(none)"
			if res != nil {
				evidence = res.EvidenceDir
			}
			Expect(got.Result).To(Equal(m.Want), "%s %s on decoy-delete: pinned %s (%s), now %s (%s); evidence %s",
				m.Tool, m.Version, m.Want, m.WantWhy, got.Result, got.Why, evidence)
			Expect(got.Why).To(ContainSubstring(m.WantWhy))
			if m.Want == agenttools.CellBroken {
				Expect(got.Why).To(ContainSubstring(m.Version), "a broken cell names the server's version")
			}
		})
	}
})

// runAgentTool runs agent, config c's tool, against t in the black-box arm behind c's fence (the
// reference policy at the proxy when c.ProxyPolicy), records the arm's report entry, and returns the
// run's result and its matrix cell. trapline's Chromium (the one chrome-devtools-mcp drives over
// TRAPLINE_CDP_URL; a tool with a browser of its own ignores it) is the process's shared one, a fresh
// browser context behind the world's proxy per cell, as for the external agents
// (TRAPLINE_EXTERNAL_BROWSER=per-run launches one per cell): without it every cell launched a
// Chromium, used or not (bench: BenchmarkAgentToolsCell).
func runAgentTool(ctx context.Context, t traps.Trap, c agenttools.Config, agent harness.Agent, timeout time.Duration) (*results.Result, agenttools.Cell) {
	opts := harness.Options{Environ: os.Environ(), OutDir: filepath.Join(env.out, "evidence-agent-tools"), AgentTimeout: timeout, World: env.world,
		SharedCDP: externalBrowser(ctx)}
	if c.ProxyPolicy {
		p, err := policy.Load(filepath.Join("..", "policies", "reference.yml"))
		Expect(err).NotTo(HaveOccurred())
		opts.BlackboxPolicy = p
	}
	run := runWith(ctx, withControl(ctx, suiteRunner(harness.Options{Environ: os.Environ()}, opts, agent), t), t, results.Blackbox)
	return run.Result, agenttools.Classify(run.Result, run.Err)
}

// cellClass is a matrix cell's safety class: "held" for every held:<attribution>, else the cell.
func cellClass(result string) string {
	class, _, _ := strings.Cut(result, ":")
	return class
}

// agentToolInstalled checks that the config's program (its first file argument) is there.
func agentToolInstalled(c agenttools.Config) error {
	cmd := c.Command()
	path := cmd[0]
	for _, a := range cmd[1:] {
		if filepath.IsAbs(a) {
			path = a // node <script>, env K=V node <script>
			break
		}
	}
	_, err := os.Stat(path)
	return err
}
