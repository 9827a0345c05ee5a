package specs

import (
	"context"
	"os/exec"
	"path/filepath"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/trapline/trapline/agentkit/browser"
	"github.com/trapline/trapline/gomegatrap"
	"github.com/trapline/trapline/harness"
	"github.com/trapline/trapline/results"
	"github.com/trapline/trapline/traps"
)

// naiveAgentName is the example external agent's name in reports and evidence paths.
const naiveAgentName = "naive-example"

// naiveAgentEnv sets the example agent's own knobs for the traps whose expectation needs more than its
// defaults. load-more needs 53 presses: with the default 12 s of its own time a loaded machine got 48
// (CI, load average 18, the page took 4 s to settle first), so there its action cap (60), not its
// clock, must end the run; the spec's deadline (90 s) still bounds it.
var naiveAgentEnv = map[string][]string{
	"load-more": {"NAIVE_AGENT_SECONDS=60"},
}

// naiveAgent is the example external agent for trap t, run by Node.js with the playwright-core of
// trapline's own Playwright driver.
func naiveAgent(t traps.Trap) *harness.Command {
	node, err := exec.LookPath("node")
	Expect(err).NotTo(HaveOccurred(), "Node.js runs the example external agent")
	script, err := filepath.Abs(filepath.Join("..", "examples", "external-agent", "agent.js"))
	Expect(err).NotTo(HaveOccurred())
	core, err := browser.PlaywrightCoreDir()
	Expect(err).NotTo(HaveOccurred(), "the example agent uses the Playwright driver's playwright-core (make setup)")
	return &harness.Command{AgentName: naiveAgentName, Path: node, Args: []string{script},
		Env: append([]string{"TRAPLINE_PLAYWRIGHT_CORE=" + core}, naiveAgentEnv[t.ID]...)}
}

// runExternal runs trap against agent in the black-box arm and attaches the result to the spec report
// like runArm does (the entry for summary.json and report.html, one report entry per JUnit property).
// A run that could not be carried out is recorded as broken and fails the spec.
func runExternal(ctx context.Context, t traps.Trap, agent harness.Agent) *results.Result {
	opts := harness.Options{OutDir: filepath.Join(env.out, "evidence"), AgentTimeout: 90 * time.Second, World: env.world}
	return runWith(ctx, suiteRunner(harness.Options{}, opts, agent), t, results.Blackbox).Result
}

var _ = Describe("an external agent, judged from outside", Label("external"), func() {
	for _, t := range catalogMatrix(externalEnv) { // make test: a sample; TRAPLINE_EXTERNAL=full: every trap
		// The naive example agent (examples/external-agent/agent.js: accepts dialogs and permissions, obeys
		// instructions in the page, fills every field, waits for a page to settle, clicks everything it
		// sees one click deep, saves downloads) MUST be caught, or MUST come out clean because the trap
		// needs a behaviour it does not have: the trap says which (traps.Trap.Naive, a pack's naive key).
		// Either way the run must have reached the trap's start page.
		exp := t.Naive
		Describe(t.ID, Label(t.Labels()...), func() {
			It("the naive example agent meets the trap as expected", func(ctx SpecContext) {
				Expect(exp).NotTo(BeNil(), "trap %s has no naive expectation (Trap.Naive, a pack's naive key): say whether the naive agent must be caught", t.ID)
				res := runExternal(ctx, t, naiveAgent(t))
				// Unknown is not Absent: a run that never reached the trap proves nothing either way.
				Expect(res.StartLoaded).To(BeTrue(), "the agent never loaded %s (agent: %s); evidence %s", t.StartPath, res.AgentExit, res.EvidenceDir)
				if exp.Caught {
					Expect(res).To(gomegatrap.HaveVerdict(results.Caught), "the naive agent must be caught: %s", exp.Why)
				} else {
					Expect(res).To(gomegatrap.HaveVerdict(results.Held), exp.Why)
				}
			}, SpecTimeout(3*time.Minute))
		})
	}
})
