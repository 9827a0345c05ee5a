package harness

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	playwright "github.com/mxschmitt/playwright-go"

	"github.com/trapline/trapline/agentkit/browser"
	"github.com/trapline/trapline/agentkit/evidence"
	"github.com/trapline/trapline/agentkit/policy"
	"github.com/trapline/trapline/proxy"
	"github.com/trapline/trapline/results"
	"github.com/trapline/trapline/traps"
	"github.com/trapline/trapline/world"
)

// DefaultAgentTimeout bounds one black-box run when Options.AgentTimeout is zero.
const DefaultAgentTimeout = 2 * time.Minute

// CAFile is the world's CA certificate (PEM) in a black-box run's folder: Env.CAFile,
// TRAPLINE_CA.
const CAFile = "ca.pem"

// Agent is an agent under test that trapline did not write. Run drives the browser at env.CDPURL (or
// any browser of its own whose traffic goes through env.ProxyURL) from env.StartURL towards env.Task,
// and returns when it is done or ctx ends (ctx carries env.Deadline).
//
// Run's error, like anything the agent says about its work, is recorded as information only
// (Result.AgentExit): a clean exit proves nothing and a crash excuses nothing. The one exception is an
// error wrapping ErrAgentNotStarted: an agent that never ran cannot pass, so the run is broken.
type Agent interface {
	// Name identifies the agent in reports and evidence paths (letters, digits and dashes).
	Name() string
	// Run runs the agent once.
	Run(ctx context.Context, env Env) error
}

// Env is what an agent under test gets for one run.
type Env struct {
	// Trap is the trap's id, for the agent's own logs (a fair agent does not act on it).
	Trap string
	// StartURL is the page the agent starts on.
	StartURL string
	// Task is what the agent is asked to do, in the portal's language.
	Task string
	// ProxyURL is the world's egress proxy, the only way to the world's sites; a browser of the
	// agent's own must send everything, loopback included, through it.
	ProxyURL string
	// CDPURL is the DevTools endpoint (http://127.0.0.1:PORT) of a headless Chromium already behind
	// ProxyURL, with downloads going to DownloadsDir.
	CDPURL string
	// ArtifactsDir is the agent's own folder for logs, screenshots and traces; trapline keeps it with
	// the run's evidence and reads nothing in it.
	ArtifactsDir string
	// DownloadsDir is the workstation's download folder: every file in it after the run is an effect
	// seen on disk.
	DownloadsDir string
	// Password is the test account's password when the trap hands the agent one (the credential
	// traps, whose incident is an agent with the password in its prompt); "" otherwise. It is
	// redacted from the agent's saved output.
	Password string
	// Deadline is when the run is cut off.
	Deadline time.Time
	// CAFile is the PEM file of the world's CA (certificate only): its proxy intercepts HTTPS with
	// it, so HTTPS is judged request by request. The browser at CDPURL trusts it, and only it; a
	// client of the agent's own trusts it only if the agent says so (curl --cacert). Made per run.
	CAFile string
	// Environ is the environment an agent that starts a process starts it from: Options.Environ,
	// the caller's process environment. An agent refuses to start a process when it is nil.
	Environ []string
}

// FenceReporter is an Agent that can say, after a run, which of its actions its own fence refused (an
// agent tool driven by trapline's planner, whose tool answered a call with a refusal). RunAgent
// records them in Result.AgentStops, so the one verdict (results.Judge) weighs the tool's fence beside
// the proxy's: no second classifier reads the agent's transcript.
type FenceReporter interface {
	// Refusals reads the run's refusals from its artifacts folder (Env.ArtifactsDir).
	Refusals(artifactsDir string) ([]results.Stop, error)
}

// ErrAgentNotStarted is wrapped by an Agent's Run error when the agent could not be started at all
// (a missing command, a bad working directory): the run is broken, not a pass.
var ErrAgentNotStarted = errors.New("the agent under test could not be started")

// ErrAgentBroken is wrapped by an Agent's Run error when the run could not be carried out to a state
// worth judging (the tool an agent drives exited mid-run, answered malformed messages or hung past a
// call's deadline): the run is broken, not a pass.
var ErrAgentBroken = errors.New("the agent under test broke before its run could be judged")

var agentName = regexp.MustCompile(`^[a-z0-9]+(-[a-z0-9]+)*$`)

// RunAgent runs trap against an agent under test in the Blackbox arm: a fresh world, a fresh
// CDP-exposed Chromium behind the world's proxy, the agent, then the outside observers. The proxy
// enforces o.BlackboxPolicy when set (the user's deployment fence) and otherwise observes: every world
// host is allowed and logged, nothing outside the world is reachable, and the agent's own fence is what
// is judged. An error means the run could not be carried out (the world, the browser, or an agent that
// never started), which is different from an agent that was caught.
func RunAgent(ctx context.Context, o Options, trap traps.Trap, ag Agent) (*results.Result, error) {
	if ag == nil {
		return nil, errors.New("harness: RunAgent needs an agent")
	}
	o, err := o.withDefaults(results.Blackbox)
	if err != nil {
		return nil, fmt.Errorf("harness: %s/%s: %w", trap.ID, results.Blackbox, err)
	}
	name := ag.Name()
	if !agentName.MatchString(name) || name == results.ReferenceAgent {
		return nil, fmt.Errorf("harness: agent name %q: want lower-case letters, digits and dashes, not %q", name, results.ReferenceAgent)
	}
	arm, err := prepareBlackbox(o, trap, name)
	if err != nil {
		return nil, err
	}
	if err := checkStartHost(o, trap); err != nil {
		return nil, err
	}
	if err := resetState(ctx, o, trap, results.Blackbox); err != nil {
		return nil, err
	}
	before, err := probeBefore(ctx, o, trap)
	if err != nil {
		return nil, err
	}
	if arm.spec.CA, err = blackboxCA(o); err != nil {
		return nil, fmt.Errorf("harness: %s/%s: %w", trap.ID, name, err)
	}
	w, err := startWorld(ctx, o, trap, arm.spec)
	if err != nil {
		return nil, fmt.Errorf("harness: %s/%s: %w", trap.ID, name, err)
	}
	res, broke, runErr := runBlackbox(ctx, o, arm.setup, trap, ag, w, arm.spec.CA, arm.dir)
	closeErr := w.Close()
	if err := errors.Join(runErr, closeErr, sealEvidence(arm.dir, arm.setup)); err != nil {
		return nil, fmt.Errorf("harness: %s/%s: %w", trap.ID, name, err)
	}
	return judgeBlackbox(ctx, o, trap, ag, arm, blackboxRun{w: w, res: res, broke: broke, before: before})
}

// blackboxArm is what a black-box run of one trap starts from: the agent's name, the Arrange hook's
// setup, the evidence folder, the world's spec (its CA still to come) and the fence's runaway limit.
type blackboxArm struct {
	name  string
	setup *traps.Setup
	dir   string
	spec  world.Spec
	limit runawayLimit
}

// prepareBlackbox arranges trap for the black-box run of the agent called name. The trap's Arrange
// hook sees the Blackbox arm: it may register secrets (the credential traps' password, handed to the
// agent) and adjust the world; planners and unsafe switches do not apply. The proxy enforces
// o.BlackboxPolicy, with the pack's guarded patch, when set, and otherwise only observes.
func prepareBlackbox(o Options, trap traps.Trap, name string) (blackboxArm, error) {
	arm := blackboxArm{name: name, setup: &traps.Setup{Policy: &policy.Policy{}, StorageState: o.StorageState}}
	if o.BlackboxPolicy != nil {
		arm.setup.Policy = o.BlackboxPolicy.Clone()
	}
	arm.dir = TrialPath(results.EvidencePath(o.OutDir, trap.ID, results.Blackbox, name), o.Trial)
	fx, err := prepare(trap, results.Blackbox, arm.setup, arm.dir)
	if err != nil {
		return arm, err
	}
	if o.BlackboxPolicy != nil {
		// The user's deployment fence gets the pack's guarded patch, as the fenced arm's does (the
		// app's host and writes): without it every trap on the app was "not exercised".
		if arm.setup.Policy, err = trap.ApplyPolicyPatch(results.Guarded, arm.setup.Policy); err != nil {
			return arm, fmt.Errorf("harness: %w", err)
		}
	}
	fx.Upstreams = append(fx.Upstreams, o.Upstreams...)
	// The trap's own page driver does not apply: a session hook is the harness session's (the agent
	// brings its own browser) and is left out, an agent of its own cannot replace the one under test.
	_, drv, err := driverOf(trap, arm.setup.Driver)
	if err != nil {
		return arm, err
	}
	if drv.agent != nil {
		return arm, fmt.Errorf("harness: %s: the trap brings its own agent, which a black-box run cannot do", trap.ID)
	}
	// The agent's browser context starts logged in as the reference arms' sessions do (blackboxCookies);
	// a proxy that enforces the user's fence lets the login's own requests through, as theirs does.
	pol := arm.setup.Policy
	if o.BlackboxPolicy == nil {
		arm.setup.Policy = nil // observe mode: no policy to add the login's requests to
	}
	err = arrangeLogin(o, trap, arm.setup)
	if arm.setup.Policy == nil {
		arm.setup.Policy = pol
	}
	if err != nil {
		return arm, err
	}
	if arm.limit, err = fenceLimit(o, trap, results.Blackbox, arm.setup); err != nil {
		return arm, fmt.Errorf("harness: %s/%s: %w", trap.ID, name, err)
	}
	arm.spec = world.Spec{Fixtures: fx, Dir: arm.dir, Off: policy.Off(policy.GuardProxyRules)}
	if o.BlackboxPolicy != nil {
		arm.spec = world.Spec{Fixtures: fx, Dir: arm.dir, Policy: arm.setup.Policy}
	}
	return arm, nil
}

// blackboxCA is the CA of one black-box run: the world's proxy intercepts HTTPS with it and the
// agent's browser trusts it, nothing else does. A shared browser trusts one CA for all its runs
// (browser.SharedCDP; trust.go).
func blackboxCA(o Options) (*proxy.CA, error) {
	if shared(o) {
		return o.SharedCDP.CA(), nil
	}
	return proxy.NewCA(proxy.DefaultCALifetime)
}

// blackboxRun is what a black-box run left to judge: its closed world, its result, how the agent
// broke (nil if it did not) and the state probe's reading before the run.
type blackboxRun struct {
	w      world.World
	res    *results.Result
	broke  error
	before probeReading
}

// judgeBlackbox completes a black-box run's result (its trial, the refusals the agent reports, what the
// outside observers saw) and writes it to the evidence folder. The outside observers judge: an agent
// that did the forbidden thing and then broke was caught (its AgentExit says how it broke). One that
// broke before any forbidden effect proves nothing either way: the run is broken, never held.
func judgeBlackbox(ctx context.Context, o Options, trap traps.Trap, ag Agent, arm blackboxArm, run blackboxRun) (*results.Result, error) {
	res := run.res
	res.Trial = o.Trial
	if fr, ok := ag.(FenceReporter); ok {
		var err error
		if res.AgentStops, err = fr.Refusals(filepath.Join(arm.dir, "agent")); err != nil {
			return nil, fmt.Errorf("harness: %s/%s: read the agent's refusals: %w", trap.ID, arm.name, err)
		}
	}
	if err := afterRun(ctx, o, trap, results.Blackbox, res, run.w, arm.dir, arm.limit, run.before, false); err != nil {
		return nil, err
	}
	if run.broke != nil && results.Judge(res).Verdict != results.Caught {
		return nil, run.broke
	}
	if err := writeResult(arm.dir, res, arm.setup); err != nil {
		return nil, err
	}
	return res, nil
}

// runBlackbox launches the browser, runs the agent within its time limit and closes the browser, so no
// request is in flight when the world closes.
//
// An agent whose run broke (ErrAgentBroken) still yields a result, with broke set: what it did before
// it broke is for the outside observers to judge.
func runBlackbox(ctx context.Context, o Options, setup *traps.Setup, trap traps.Trap, ag Agent, w world.World, ca *proxy.CA, dir string) (res *results.Result, broke, err error) {
	env := Env{Trap: trap.ID, StartURL: StartURL(w, trap), Task: trap.Task, ProxyURL: w.ProxyURL(),
		ArtifactsDir: filepath.Join(dir, "agent"), DownloadsDir: filepath.Join(dir, downloadsDir), CAFile: filepath.Join(dir, CAFile),
		Environ: o.Environ}
	if err := os.WriteFile(env.CAFile, ca.PEM(), evidence.FileMode); err != nil {
		return nil, nil, fmt.Errorf("harness: write the world's CA: %w", err)
	}
	if setup.Password != "" {
		env.Password = setup.Password
		setup.Secrets = append(setup.Secrets, setup.Password)
	}
	for _, d := range []string{env.ArtifactsDir, env.DownloadsDir} {
		if err := os.MkdirAll(d, evidence.DirMode); err != nil {
			return nil, nil, fmt.Errorf("harness: create %s: %w", d, err)
		}
	}
	cookies, origins, err := blackboxState(ctx, o, setup, w, dir)
	if err != nil {
		return nil, nil, err
	}
	b, err := launchBlackbox(ctx, o, w, env, ca, dir, cookies)
	if err != nil {
		return nil, nil, err
	}
	if len(origins) > 0 { // a single-page app's session: the context's local storage, before the agent connects
		if err := seedBlackbox(o, b, origins); err != nil {
			return nil, nil, errors.Join(err, b.Close())
		}
	}
	env.CDPURL = b.URL()
	// An agent that lives in an extension of its browser (Stagehand 4's runtime) speaks CDP to the
	// browser's DevTools port from inside it, through the world's proxy: the proxy opens that one door,
	// for the extensions loaded in this browser only (proxy.DevToolsDoor).
	if cb, ok := b.(interface{ DevToolsDoor() proxy.DevToolsDoor }); ok {
		if opener, ok := w.(world.DevToolsDoorOpener); ok {
			closeDoor, err := opener.AdmitDevTools(cb.DevToolsDoor())
			if err != nil {
				return nil, nil, errors.Join(fmt.Errorf("harness: %w", err), b.Close())
			}
			defer closeDoor()
		}
	}
	timeout := o.AgentTimeout
	env.Deadline = time.Now().Add(timeout)
	runCtx, cancel := context.WithDeadline(ctx, env.Deadline)
	defer cancel()
	start := time.Now()
	agentErr := ag.Run(runCtx, env)
	elapsed := time.Since(start)
	if err := errors.Join(b.Close(), writeBrowserDownloads(b, dir)); err != nil {
		return nil, nil, err
	}
	if errors.Is(agentErr, ErrAgentNotStarted) {
		return nil, nil, agentErr
	}
	if ctx.Err() != nil { // the caller gave up (a spec timeout, Ctrl-C): nothing to judge
		return nil, nil, fmt.Errorf("harness: run interrupted: %w", ctx.Err())
	}
	if errors.Is(agentErr, ErrAgentBroken) {
		broke = agentErr
	}
	res = &results.Result{Trap: trap.ID, Category: string(trap.Category), Arm: results.Blackbox, Agent: ag.Name(), EvidenceDir: dir,
		Duration: elapsed, AgentExit: describeExit(agentErr, runCtx, timeout)}
	res.Reason = evidence.NewRedactor(setup.Secrets...).String(res.AgentExit)
	res.AgentExit = res.Reason
	res.Killed = readKilled(filepath.Join(env.ArtifactsDir, results.KilledFile))
	if broke != nil {
		res.AgentExit = "broken: " + strings.TrimSpace(evidence.NewRedactor(setup.Secrets...).String(broke.Error()))
		res.Reason = res.AgentExit
	}
	return res, broke, nil
}

// shared reports whether a black-box run of o takes a context of o.SharedCDP.
func shared(o Options) bool { return o.SharedCDP != nil && !wholeBrowser(o) }

// wholeBrowser says whether a black-box run gets a whole Chromium of its own (Options.WholeBrowser).
func wholeBrowser(o Options) bool { return o.WholeBrowser || len(o.Extensions) > 0 }

// blackboxBrowser is the browser of one black-box run: a Chromium of its own or a run of a shared one.
type blackboxBrowser interface {
	URL() string
	Close() error
}

// launchBlackbox gives the run its browser behind w's proxy: a fresh context of o.SharedCDP, or a
// Chromium launched for it (its log in dir/chromium.log). Unless the run wants a whole browser
// (Options.WholeBrowser, or extensions) the launched one is a
// SharedCDP of its own serving this one run, so that, as in a shared browser, only the run's
// context goes through the world's proxy and the browser's own traffic (Chromium 156 asks
// accounts.google.com, update.googleapis.com and content-autofill.googleapis.com whatever its
// switches say) goes to a deny-all sink instead of being judged as the agent's. A whole browser
// (an agent in an extension needs it in the browser's own context) is proxied whole
// (browser.LaunchWholeCDP: no DevTools port, the agent's endpoint filtered like a shared run's) and
// its own traffic is the agent's.
func launchBlackbox(ctx context.Context, o Options, w world.World, env Env, ca *proxy.CA, dir string, cookies []playwright.OptionalCookie) (blackboxBrowser, error) {
	runOpts := browser.SharedRunOptions{ProxyURL: w.ProxyURL(), DownloadsDir: env.DownloadsDir, Cookies: cookies}
	if shared(o) {
		return o.SharedCDP.NewRun(ctx, runOpts)
	}
	if wholeBrowser(o) && len(cookies) > 0 {
		return nil, fmt.Errorf("harness: %w: a whole browser (extensions, --whole-browser) cannot start from a login or a storage state yet", ErrInvalidOptions)
	}
	logFile, err := os.Create(filepath.Join(dir, "chromium.log"))
	if err != nil {
		return nil, fmt.Errorf("harness: create chromium log: %w", err)
	}
	if wholeBrowser(o) {
		defer logFile.Close()
		return browser.LaunchWholeCDP(ctx, browser.CDPOptions{ExecutablePath: o.Chromium, ProxyURL: w.ProxyURL(),
			DownloadsDir: env.DownloadsDir, Log: logFile, Extensions: o.Extensions, CA: ca, Environ: o.Environ})
	}
	s, err := browser.LaunchSharedCDP(ctx, browser.CDPOptions{ExecutablePath: o.Chromium, Log: logFile, CA: ca, Environ: o.Environ})
	if err != nil {
		return nil, errors.Join(err, logFile.Close())
	}
	r, err := s.NewRun(ctx, runOpts)
	if err != nil {
		return nil, errors.Join(err, s.Close(), logFile.Close())
	}
	return ownBrowser{run: r, browser: s, log: logFile}, nil
}

// ownBrowser is a one-run SharedCDP: closing the run closes the browser and its log.
type ownBrowser struct {
	run     *browser.SharedRun
	browser *browser.SharedCDP
	log     *os.File
}

func (b ownBrowser) URL() string { return b.run.URL() }

// Downloads are the downloads the run's browser began (browser.SharedRun.Downloads).
func (b ownBrowser) Downloads() []browser.Download { return b.run.Downloads() }

func (b ownBrowser) Close() error {
	return errors.Join(b.run.Close(), b.browser.Close(), b.log.Close())
}

// describeExit puts an agent's end in words, for information only.
func describeExit(err error, runCtx context.Context, timeout time.Duration) string {
	switch {
	case errors.Is(runCtx.Err(), context.DeadlineExceeded):
		return fmt.Sprintf("timeout after %s", timeout)
	case err == nil:
		return "exit 0"
	}
	var ee interface{ ExitCode() int }
	if errors.As(err, &ee) && ee.ExitCode() >= 0 {
		return fmt.Sprintf("exit %d", ee.ExitCode())
	}
	return "error: " + strings.TrimSpace(err.Error())
}

// readKilled reads the processes an agent left running that its run had to kill (results.KilledFile,
// written by the agent's runner: Command, the agent tools); none when the file is absent.
func readKilled(path string) []string {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil
	}
	var out []string
	for _, line := range strings.Split(string(b), "\n") {
		if line = strings.TrimSpace(line); line != "" {
			out = append(out, line)
		}
	}
	return out
}
