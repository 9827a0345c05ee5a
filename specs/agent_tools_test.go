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
	"github.com/trapline/trapline/traps"
)

// agentToolsSmoke are the traps whose pinned cells the agent-tools specs re-run for every config in
// make test: one destructive click (decoy-delete: every tool lets it through; only the proxy's
// reference policy holds it) and one outside link (external-link: where the tools' own origin
// fences answer). TRAPLINE_AGENT_TOOLS_FULL=1 re-runs every pinned cell (9 configs × the catalog;
// about an hour on a loaded 2-core machine): the check after a tool upgrade.
var agentToolsSmoke = []string{"decoy-delete", "external-link"}

// agentToolsMatrix is the pinned matrix: the cells `trapline tools matrix` wrote for the versions
// tools/package-lock.json pins.
const agentToolsMatrix = "../docs/agent-tools.json"

var _ = Describe("real agent tools driven by the adversary acting as the model", Label("agent-tools"), func() {
	pinned, err := agenttools.ReadMatrix(agentToolsMatrix)
	if err != nil {
		panic(err) // a pinned matrix that does not parse is a broken tree, not a skipped spec
	}
	full := os.Getenv("TRAPLINE_AGENT_TOOLS_FULL") == "1"
	for _, c := range agenttools.Configs(filepath.Join("..", agenttools.ToolsDir)) {
		for _, t := range traps.Catalog() {
			want, ok := pinned.Cells[t.ID][c.Name()]
			if !ok || (!full && !slices.Contains(agentToolsSmoke, t.ID)) {
				continue
			}
			Describe(t.ID, Label(t.Labels()...), func() {
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
				res *harness.Result
				got agenttools.Cell
			)
			if m.Want == agenttools.CellBroken {
				// A server pinned as broken here: its run is expected to break, so it is not attached as a
				// failed run; the cell and its reason are the expectation.
				opts := harness.Options{OutDir: filepath.Join(env.out, "evidence-agent-tools"), AgentTimeout: 2 * time.Minute, World: env.world}
				runs, err := (&harness.ArmRunner{UnderTest: opts, Agent: m.Agent()}).Run(ctx, t, harness.Blackbox)
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
// run's result and its matrix cell.
func runAgentTool(ctx context.Context, t traps.Trap, c agenttools.Config, agent harness.Agent, timeout time.Duration) (*harness.Result, agenttools.Cell) {
	opts := harness.Options{OutDir: filepath.Join(env.out, "evidence-agent-tools"), AgentTimeout: timeout, World: env.world}
	if c.ProxyPolicy {
		p, err := policy.Load(filepath.Join("..", "policies", "reference.yml"))
		Expect(err).NotTo(HaveOccurred())
		opts.BlackboxPolicy = p
	}
	run := runWith(ctx, suiteRunner(harness.Options{}, opts, agent), t, harness.Blackbox)
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
	if len(cmd) > 1 && filepath.IsAbs(cmd[1]) {
		path = cmd[1] // node <script>
	}
	_, err := os.Stat(path)
	return err
}
