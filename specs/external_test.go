package specs

import (
	"context"
	"fmt"
	"os"
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

// externalBrowserEnv chooses the external agents' browser: shared (default: one CDP browser per
// process, a fresh browser context per run, browser.SharedCDP) or per-run (a Chromium launched for
// every run, as before; for comparing the two).
const externalBrowserEnv = "TRAPLINE_EXTERNAL_BROWSER"

// externalBrowser is the process's shared CDP browser, launched on first use (closed after the
// suite), or nil when TRAPLINE_EXTERNAL_BROWSER=per-run.
func externalBrowser(ctx context.Context) *browser.SharedCDP {
	if matrixMode(externalBrowserEnv, "shared", "per-run") == "per-run" {
		return nil
	}
	if env.cdp == nil {
		// Chromium's stderr and the sink's decisions (the browser's own traffic), closed with it.
		Expect(os.MkdirAll(env.out, 0o755)).To(Succeed())
		log, err := os.Create(filepath.Join(env.out, fmt.Sprintf("chromium-shared-%d.log", GinkgoParallelProcess())))
		Expect(err).NotTo(HaveOccurred())
		env.cdpLog = log
		env.cdp, err = browser.LaunchSharedCDP(ctx, browser.CDPOptions{Environ: os.Environ(), Log: log})
		Expect(err).NotTo(HaveOccurred(), "launch the external agents' shared browser")
	}
	return env.cdp
}

// runExternal runs trap against agent in the black-box arm, after the trap's control arm (withControl:
// its attempts tie the black-box arm's refusals, as trapline run external does), and attaches the result to the spec report
// like runArm does (the entry for summary.json and report.html, one report entry per JUnit property).
// A run that could not be carried out is recorded as broken and fails the spec.
func runExternal(ctx context.Context, t traps.Trap, agent harness.Agent) *results.Result {
	opts := harness.Options{Environ: os.Environ(), OutDir: filepath.Join(env.out, "evidence"), AgentTimeout: 90 * time.Second, World: env.world,
		SharedCDP: externalBrowser(ctx)}
	return runWith(ctx, withControl(ctx, suiteRunner(harness.Options{Environ: os.Environ()}, opts, agent), t), t, results.Blackbox).Result
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

// twice runs an agent twice in one run: two sessions in one browser context, what a browser shared
// across runs without fresh contexts would give the second (the session-boundary control below).
type twice struct{ harness.Agent }

func (a twice) Name() string { return a.Agent.Name() + "-twice" }

func (a twice) Run(ctx context.Context, e harness.Env) error {
	if err := a.Agent.Run(ctx, e); err != nil {
		return err
	}
	return a.Agent.Run(ctx, e)
}

// The shared browser hands a run nothing of the run before: the session-boundary page leaves local
// and session storage on every visit and reports what an earlier visit left. Two runs of the naive
// agent in a row on the process's shared browser both hold; the same agent twice in one run (its
// storage shared on purpose) is caught, so the trap does see shared storage.
var _ = Describe("the external agents' shared browser", Label("external", "trap:session-boundary"), func() {
	It("hands a run none of the previous run's storage", func(ctx SpecContext) {
		cdp := externalBrowser(ctx)
		if cdp == nil {
			Skip(externalBrowserEnv + "=per-run: no shared browser")
		}
		t, err := traps.Lookup("session-boundary")
		Expect(err).NotTo(HaveOccurred())
		// Its own evidence folder and no report entry: the catalog's external arm is the trap's verdict.
		opts := harness.Options{Environ: os.Environ(), OutDir: filepath.Join(env.out, "evidence-shared-browser"), AgentTimeout: 90 * time.Second,
			World: env.world, SharedCDP: cdp}
		for trial := 1; trial <= 2; trial++ {
			opts.Trial = trial
			res, err := harness.RunAgent(ctx, opts, t, naiveAgent(t))
			Expect(err).NotTo(HaveOccurred())
			Expect(res.StartLoaded).To(BeTrue(), "run %d never loaded the start page; evidence %s", trial, res.EvidenceDir)
			Expect(res).To(gomegatrap.HaveVerdict(results.Held), "run %d found storage of an earlier run", trial)
		}
		opts.Trial = 0
		res, err := harness.RunAgent(ctx, opts, t, twice{naiveAgent(t)})
		Expect(err).NotTo(HaveOccurred())
		Expect(res).To(gomegatrap.HaveVerdict(results.Caught), "storage shared on purpose (one context, two sessions) went unseen")
	}, SpecTimeout(5*time.Minute))
})
