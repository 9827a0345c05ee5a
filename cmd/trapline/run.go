package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/trapline/trapline/agentkit/action"
	"github.com/trapline/trapline/agentkit/browser"
	"github.com/trapline/trapline/agentkit/credentials"
	"github.com/trapline/trapline/agentkit/planner"
	"github.com/trapline/trapline/agentkit/planner/adversary"
	"github.com/trapline/trapline/fixtures"
	"github.com/trapline/trapline/harness"
	"github.com/trapline/trapline/internal/container"
	execplanner "github.com/trapline/trapline/internal/planner/exec"
	"github.com/trapline/trapline/internal/planner/llm"
	"github.com/trapline/trapline/policies"
	"github.com/trapline/trapline/reports"
	"github.com/trapline/trapline/results"
	"github.com/trapline/trapline/traps"
	"github.com/trapline/trapline/traps/scenario"
	"github.com/trapline/trapline/world"
)

// runConfig is trapline run's parsed command line.
type runConfig struct {
	agent, planner, model, policy, world, out, name string
	mcpURL                                          string // run mcp: the streamable HTTP endpoint
	controlPolicy, upstreamHost                     string
	upstream                                        dirsFlag // --upstream, repeatable: URL or HOST=URL
	trapsDirs                                       dirsFlag
	twins                                           []traps.Trap // --twins: the benign twins, run in the fenced arm
	app                                             userAppFlags // --upstream-image, --probe-cmd
	extensions                                      dirsFlag     // --extension: unpacked extensions in the black-box browser
	wholeBrowser                                    bool         // --whole-browser: harness.Options.WholeBrowser
	video                                           string
	traps                                           []traps.Trap
	timeout                                         time.Duration
	// unfenced adds the agent under test's unfenced arm; minCompleted is the utility gate (a
	// completed-under-policy rate, 0 off).
	unfenced     bool
	minCompleted float64
	// agentVersion is the version the agent under test reports, for provenance.
	agentVersion string
	// repeat runs every arm of an agent under test this many times (pass^k).
	repeat   int
	command  []string
	launcher world.Launcher // nil: the embedded world
	// storageState is --storage-state: the test account's Playwright storage state.
	storageState string
	// freshProofs is --fresh-proofs: re-make the adversary's arms instead of reusing kept ones
	// (proofs.go).
	freshProofs bool
	// loginFile is --login: a login file (agentkit/credentials) every arm's login tool runs with;
	// login is it read (checkLogin). keepAppStorage is --keep-app-storage.
	loginFile      string
	login          *credentials.Login
	keepAppStorage bool
}

// cmdRun runs the catalog (or a selection) against an agent and writes evidence, summary and report.
func cmdRun(args []string, stdout io.Writer) error {
	cfg, err := parseRun(args)
	if err != nil {
		return withCode(exitUsage, fmt.Errorf("run: %w\n%s", err, modeUsage(cfg.agent)))
	}
	out, err := beginRunOut(cfg.out, stdout) // runout.go: the folder marked in progress, the old run superseded
	if err != nil {
		return err
	}
	defer out.close()
	ctx, stop := untilStopped()
	defer stop()
	launcher, closeWorld, err := openWorld(ctx, cfg.world, stdout)
	if err != nil {
		return out.end(ctx, reports.Summary{}, err, 0, stdout)
	}
	cfg.launcher = launcher
	closeApp, err := startUserApp(ctx, &cfg, stdout)
	if err != nil {
		return out.end(ctx, reports.Summary{}, errors.Join(err, closeWorld()), 0, stdout)
	}
	var s reports.Summary
	switch cfg.agent {
	case "external", agentMCP, agentBrowserCLI:
		s, err = runExternal(ctx, cfg, stdout)
	default:
		s, err = runReference(ctx, cfg, stdout)
	}
	if cerr := closeWorld(); cerr != nil {
		err = errors.Join(err, withCode(exitBroken, fmt.Errorf("close the container world: %w", cerr)))
	}
	if cerr := closeApp(); cerr != nil {
		err = errors.Join(err, withCode(exitBroken, cerr))
	}
	// runout.go: summary.json, junit.xml and report.html (an interrupted summary on a signal), the
	// table and the gates.
	return out.end(ctx, s, err, cfg.minCompleted, stdout)
}

// parseRun parses trapline run's command line: the mode (runModeOf, run_modes.go), the shared flags
// and the mode's own, then resolves and checks them together (resolveRun, run_checks.go); the first
// error is the usage error.
func parseRun(args []string) (runConfig, error) {
	mode, args, err := runModeOf(args)
	cfg := runConfig{agent: mode.agent, planner: "adversary", video: "off", timeout: harness.DefaultAgentTimeout}
	if err != nil {
		return cfg, err
	}
	fs := newFlags(mode.command())
	sel := registerRunFlags(fs, &cfg)
	for _, name := range mode.flags {
		runFlags[name](fs, &cfg, sel)
	}
	if err := parseFlags(fs, args); err != nil {
		return cfg, explainFlag(err, fs, args, mode)
	}
	cfg.command = fs.Args()
	err = resolveRun(&cfg, *sel, mode)
	return cfg, err
}

// registerRunFlags declares the flags every mode of trapline run takes, each into its field of cfg
// (a mode's own flags are rows of runFlags, run_modes.go); --traps and --twins go into the returned
// selection, which resolveRun turns into cfg.traps and cfg.twins.
func registerRunFlags(fs *flag.FlagSet, cfg *runConfig) *runSelection {
	sel := &runSelection{}
	fs.StringVar(&cfg.policy, "policy", "", "run, run exec: the guarded arm's policy, an embedded name or a file (default reference); black-box modes: the proxy's policy (default: observe)")
	fs.StringVar(&cfg.controlPolicy, "control-policy", policies.Permissive, "the control arm's policy, an embedded name or a file (every agent: the adversary's control arm runs first)")
	fs.Var(&cfg.trapsDirs, "traps-dir", "a trap pack folder to add to the catalog (repeatable)")
	fs.Var(&cfg.upstream, "upstream", "your own staging app, put in the world behind its proxy: `HOST=URL` (repeatable, one per app), or a URL with --upstream-host")
	fs.StringVar(&cfg.upstreamHost, "upstream-host", "", "the host name the browser uses for a bare --upstream URL (or --upstream-image), e.g. portale.example.test")
	cfg.app.register(fs)
	fs.StringVar(&sel.traps, "traps", "", "trap ids or labels, comma separated (default: the whole catalog)")
	fs.StringVar(&cfg.world, "world", "embedded", "embedded, container or auto")
	fs.StringVar(&cfg.out, "out", filepath.Join("reports", "out", "run"), "the output folder")
	fs.StringVar(&cfg.name, "name", "", "the agent under test's name in reports (default: from its planner or command)")
	fs.StringVar(&cfg.storageState, "storage-state", "", "a Playwright storage-state file every run's context starts from, the agent under test's too (the test account's session; a secret, never written into the evidence)")
	fs.StringVar(&cfg.loginFile, "login", "", "a login file (url, user_field, password_field, submit, username, password_env or password_file, success) the deterministic login tool runs before every arm, in place of a pack's login:")
	fs.BoolVar(&cfg.keepAppStorage, "keep-app-storage", false, "keep --storage-state's local storage of the --upstream apps' origins (a single-page app's session); every other origin's is still stripped")
	fs.StringVar(&cfg.agentVersion, "agent-version", "", "the agent's version, for provenance (default: the SHA-256 of its command's script)")
	fs.IntVar(&cfg.repeat, "repeat", 1, "run every arm of an agent under test K times in fresh worlds; it holds only if all K hold (pass^k)")
	fs.Float64Var(&cfg.minCompleted, "min-completed", 0, "fail (exit 5) when the agent under test's completed-under-policy rate is below this (0..1)")
	fs.BoolVar(&cfg.freshProofs, "fresh-proofs", false, "re-make the adversary's arms (control, guarded) instead of reusing the proofs an earlier run with every input the same kept (also TRAPLINE_PROOFS=fresh; docs/proof-cache.md)")
	return sel
}

// selectTraps resolves a comma-separated list of trap ids and labels (category, trap:ID) against the
// registry (the catalog plus the packs in dirs), in registration order. An item that selects nothing
// is an error. With packs and no list, the selection is the packs' traps: a user running their pack
// wants its traps, and names catalog traps with --traps to run them beside it.
func selectTraps(list string, dirs ...string) ([]traps.Trap, error) {
	r, err := registry(dirs)
	if err != nil {
		return nil, err
	}
	if strings.TrimSpace(list) == "" && len(dirs) > 0 {
		var ids []string
		for _, d := range dirs {
			ts, err := traps.LoadPack(d)
			if err != nil {
				return nil, err
			}
			for _, t := range ts {
				ids = append(ids, t.ID)
			}
		}
		list = strings.Join(ids, ",")
	}
	// The headline scenario is no catalog trap (it expects no guard: role-and-name targeting is what
	// keeps pratica 4): it runs when named by its id, never by a label, after the traps listed.
	sc := scenario.Trap()
	items := strings.Split(list, ",")
	rest := slices.DeleteFunc(slices.Clone(items), func(it string) bool { return strings.TrimSpace(it) == sc.ID })
	var out []traps.Trap
	if len(rest) < len(items) {
		out = append(out, sc)
		if strings.TrimSpace(strings.Join(rest, "")) == "" {
			return out, nil
		}
	}
	sel, err := r.Select(strings.Join(rest, ","))
	if err != nil {
		return nil, fmt.Errorf("--traps: %w", err)
	}
	return append(sel, out...), nil
}

// twinsOf is the benign twins to run: every twin, or with a trap list, the twins of its traps.
func twinsOf(selected []traps.Trap, listed bool) []traps.Trap {
	var out []traps.Trap
	for _, tw := range traps.Twins() {
		if !listed || slices.ContainsFunc(selected, func(t traps.Trap) bool { return t.ID == tw.TwinOf }) {
			out = append(out, tw)
		}
	}
	return out
}

// selectWorld checks --world: embedded (in-process listeners on loopback), container (the world in
// Docker containers, docs/container-mode.md) or auto (container when a Docker engine answers).
func selectWorld(name string) error {
	switch container.Mode(name) {
	case container.ModeEmbedded, container.ModeContainer, container.ModeAuto:
		return nil
	}
	return fmt.Errorf("--world %q: want embedded, container or auto", name)
}

// openWorld is the one place the run's world launcher is made: nil for the embedded world; in
// container mode it sweeps what crashed runs left, builds the world image (from this source tree) and
// returns a launcher whose close removes every container and network of the run and checks that none
// is left. It says which world it chose and why.
func openWorld(ctx context.Context, name string, stdout io.Writer) (world.Launcher, func() error, error) {
	noop := func() error { return nil }
	p, err := container.Prepare(ctx, container.Mode(name), container.EngineFromEnv(os.Getenv), os.Environ())
	if err != nil {
		return nil, noop, withCode(exitBroken, err)
	}
	fmt.Fprintf(stdout, "trapline: %s\n", p.Why)
	l, err := p.Launcher()
	if err != nil {
		return nil, noop, withCode(exitBroken, err)
	}
	if l == nil {
		return nil, noop, nil
	}
	closeAll := func() error {
		err := l.Close()
		// A fresh context: the run's may be cancelled (SIGINT), and the check must still happen.
		cctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		return errors.Join(err, container.CheckNoneLeft(cctx, l.Run()))
	}
	return l, closeAll, nil
}

// plannerFor returns the reference agent's planner factory for --planner (nil: the harness default,
// the adversary) and a function that releases what the factory started (exec planner processes), to
// call after each run.
//   - exec: one planner process per run (the command after --), stopped after the run. A process that
//     cannot start makes that run's planner fail, so the run ends Inconclusive and says why.
//   - llm: one conversation per run, configured from the TRAPLINE_LLM_* environment (docs/llm-planner.md);
//     --model overrides TRAPLINE_LLM_MODEL. The configuration is checked once, before any run.
func plannerFor(ctx context.Context, name, model string, command []string, stderr io.Writer) (func(traps.Trap, results.Arm) planner.Planner, func() error, error) {
	noop := func() error { return nil }
	if model != "" && name != "llm" {
		return nil, nil, errors.New("--model is for --planner llm")
	}
	switch name {
	case "adversary":
		return func(traps.Trap, results.Arm) planner.Planner { return adversary.New() }, noop, nil
	case "exec":
		var started []*execplanner.Planner
		factory := func(traps.Trap, results.Arm) planner.Planner {
			p, err := execplanner.Start(ctx, execplanner.Config{Command: command, Stderr: stderr})
			if err != nil {
				return planner.Func(func(context.Context, planner.Input) (action.Action, error) {
					return action.Action{}, fmt.Errorf("start the exec planner: %w", err)
				})
			}
			started = append(started, p)
			return p
		}
		release := func() error {
			var errs []error
			for _, p := range started {
				errs = append(errs, p.Close())
			}
			started = nil
			return errors.Join(errs...)
		}
		return factory, release, nil
	case "diligent":
		// The reference diligent planner: each trap's task by role and name, never the bait. Under the
		// guarded policy it measures the policy's over-blocking (docs: gate a model upgrade).
		return func(t traps.Trap, _ results.Arm) planner.Planner { return traps.DiligentPlanner(t) }, noop, nil
	case "llm":
		cfg := llm.ConfigFromEnv(os.Getenv)
		if model != "" {
			cfg.Model = model
		}
		if _, err := llm.New(cfg); err != nil {
			return nil, nil, err
		}
		factory := func(traps.Trap, results.Arm) planner.Planner {
			p, err := llm.New(cfg)
			if err != nil { // checked above; the same configuration
				return planner.Func(func(context.Context, planner.Input) (action.Action, error) { return action.Action{}, err })
			}
			return p
		}
		return factory, noop, nil
	}
	return nil, nil, fmt.Errorf("--planner %q: want adversary, diligent, exec or llm", name)
}

var notNameChars = regexp.MustCompile(`[^a-z0-9]+`)

// agentNameFrom makes a report name from a command: the script it runs when its first argument is a
// file (node agent.js, python3 agent.py; a script called agent.* is named by its folder), otherwise
// the program, in lower-case letters, digits and dashes.
func agentNameFrom(command []string) string {
	base := filepath.Base(command[0])
	if len(command) > 1 {
		if fi, err := os.Stat(command[1]); err == nil && !fi.IsDir() {
			base = filepath.Base(command[1])
			if dir := filepath.Base(filepath.Dir(command[1])); strings.TrimSuffix(base, filepath.Ext(base)) == "agent" && dir != "." {
				base = dir // examples/external-agent/agent.js -> external-agent
			}
		}
	}
	name := strings.Trim(notNameChars.ReplaceAllString(strings.ToLower(strings.TrimSuffix(base, filepath.Ext(base))), "-"), "-")
	if name == "" || name == results.ReferenceAgent {
		return "external"
	}
	return name
}

// runReference runs the reference agent (or its exec-planner variant) in both arms of each trap.
func runReference(ctx context.Context, cfg runConfig, stdout io.Writer) (reports.Summary, error) {
	var s reports.Summary
	newPlanner, release, err := plannerFor(ctx, cfg.planner, cfg.model, cfg.command, os.Stderr)
	if err != nil {
		return s, withCode(exitUsage, err)
	}
	guardedPath := cfg.policy
	if guardedPath == "" {
		guardedPath = policies.Reference
	}
	guarded, err := loadPolicy(guardedPath, "--policy")
	if err != nil {
		return s, err
	}
	permissive, err := loadPolicy(cfg.controlPolicy, "--control-policy")
	if err != nil {
		return s, err
	}
	started := time.Now()
	alloc, err := browser.AllocatorFromEnv(browser.Options{Environ: os.Environ()}) // TRAPLINE_BROWSER_WS: a remote browser server
	if err != nil {
		return s, withCode(exitBroken, err)
	}
	b, err := alloc.Allocate()
	if err != nil {
		return s, withCode(exitBroken, err)
	}
	defer b.Close()
	if s.Provenance, err = provenanceOf(ctx, cfg, started, guardedPath, b.Version()); err != nil {
		return s, withCode(exitBroken, err)
	}
	// The adversary proves each trap (control fires, guarded holds); a planner under test (exec, llm)
	// then runs in its own arms, judged from outside (results.Judge).
	proof := harness.Options{Environ: os.Environ(), Browser: b, Guarded: guarded, Control: permissive, OutDir: filepath.Join(cfg.out, "evidence"), World: cfg.launcher,
		Trace: true, Video: cfg.video, Upstreams: cfg.upstreams(), StorageState: cfg.storageState, ProbeCommand: cfg.app.probeCommand(), ResetCommand: cfg.app.resetCommand(),
		Login: cfg.login, KeepAppStorage: cfg.keepAppStorage}
	underTest := proof
	served := &servedModels{}
	underTest.NewPlanner, underTest.AgentName = served.wrap(newPlanner), cfg.name
	// The control arm runs first: the attempts that fire the trap there (Result.FiredBy) are what the
	// guarded and fenced arms' refusals must be of; the runner (harness.ArmRunner, the specs' too)
	// sees to it.
	arms := []results.Arm{results.Control, results.Guarded}
	if cfg.planner != "adversary" {
		arms = append(arms, results.Fenced)
		if cfg.unfenced {
			arms = append(arms, results.Unfenced)
		}
	}
	total := 0
	for _, arm := range arms {
		total += len(cfg.traps) * trialsOf(cfg, arm)
	}
	if len(cfg.twins) > 0 {
		total += len(cfg.twins) * cfg.repeat
	}
	runner := &harness.ArmRunner{Proof: proof, UnderTest: underTest, Trials: cfg.repeat, Release: release}
	if err := useProofCache(runner, cfg, s.Provenance, b.Version(), stdout); err != nil {
		return s, err
	}
	s, err = runTraps(ctx, runner, cfg.traps, arms, total, stdout, s)
	if err == nil && len(cfg.twins) > 0 {
		// The benign twins: the agent under test alone, in the fenced arm (a twin forbids nothing and
		// expects no guard, so the adversary's arms prove nothing on it).
		s, err = runTraps(ctx, runner, cfg.twins, []results.Arm{results.Fenced}, total, stdout, s)
	}
	if m := served.latest(); m != "" && s.Provenance != nil {
		s.Provenance.Agent.ModelServed = m
	}
	return s, err
}

// servedModels keeps the llm planners a run made, to read the model id the server reported.
type servedModels struct {
	mu       sync.Mutex
	planners []*llm.Planner
}

// wrap records every llm planner the factory makes.
func (m *servedModels) wrap(f func(traps.Trap, results.Arm) planner.Planner) func(traps.Trap, results.Arm) planner.Planner {
	if f == nil {
		return nil
	}
	return func(t traps.Trap, arm results.Arm) planner.Planner {
		p := f(t, arm)
		if lp, ok := p.(*llm.Planner); ok {
			m.mu.Lock()
			m.planners = append(m.planners, lp)
			m.mu.Unlock()
		}
		return p
	}
}

// latest is the model id the server reported last, "" when no answer named one.
func (m *servedModels) latest() string {
	m.mu.Lock()
	defer m.mu.Unlock()
	for i := len(m.planners) - 1; i >= 0; i-- {
		if s := m.planners[i].ServedModel(); s != "" {
			return s
		}
	}
	return ""
}

// runTraps runs arms of every trap through runner, printing a progress line per run, and appends
// each arm's entry to s.
func runTraps(ctx context.Context, runner *harness.ArmRunner, ts []traps.Trap, arms []results.Arm, total int, stdout io.Writer, s reports.Summary) (reports.Summary, error) {
	i := 0
	done := runner.Done
	runner.Done = func(run harness.ArmRun) {
		i++
		printProgress(stdout, i, total, run.Entry)
		if done != nil {
			done(run)
		}
	}
	for _, t := range ts {
		entries, err := runner.RunTrap(ctx, t, arms)
		s.Entries = append(s.Entries, entries...)
		if err != nil {
			return s, withCode(exitBroken, err)
		}
	}
	return s, nil
}

// runExternal runs the command as a black-box agent against each trap, after the trap's control arm:
// the adversary under the permissive policy (--control-policy) in a browser of trapline's, whose
// attempts (Result.FiredBy) tie the black-box arm's refusals to the request that fires the trap, so a
// proxy refusal of it is "held (stopped by deny_path at proxy)", as for every other agent (one
// runner, harness.ArmRunner; one verdict, results.Judge).
func runExternal(ctx context.Context, cfg runConfig, stdout io.Writer) (reports.Summary, error) {
	var s reports.Summary
	permissive, err := loadPolicy(cfg.controlPolicy, "--control-policy")
	if err != nil {
		return s, err
	}
	if s.Provenance, err = provenanceOf(ctx, cfg, time.Now(), cfg.policy, ""); err != nil {
		return s, withCode(exitBroken, err)
	}
	opts := harness.Options{Environ: os.Environ(), OutDir: filepath.Join(cfg.out, "evidence"), AgentTimeout: cfg.timeout, World: cfg.launcher, Upstreams: cfg.upstreams(), ProbeCommand: cfg.app.probeCommand(), ResetCommand: cfg.app.resetCommand(),
		Extensions: cfg.extensions, WholeBrowser: cfg.wholeBrowser, Login: cfg.login, KeepAppStorage: cfg.keepAppStorage, StorageState: cfg.storageState}
	if cfg.policy != "" {
		p, err := policies.Resolve(cfg.policy)
		if err != nil {
			return s, withCode(exitUsage, err)
		}
		opts.BlackboxPolicy = p
	}
	alloc, err := browser.AllocatorFromEnv(browser.Options{Environ: os.Environ()}) // the adversary's control arms
	if err != nil {
		return s, withCode(exitBroken, err)
	}
	b, err := alloc.Allocate()
	if err != nil {
		return s, withCode(exitBroken, err)
	}
	defer b.Close()
	opts.Browser = b // a login for the agent's browser is made in a session of trapline's own (its login/ folder)
	proof := opts
	proof.Control, proof.Trace = permissive, true
	agent := externalAgent(cfg)
	fmt.Fprintf(stdout, "agent %s: %s (proxy: %s)\n", cfg.name, strings.Join(cfg.command, " "), proxyMode(cfg.policy))
	printNaiveNote(stdout, cfg.traps)
	runner := &harness.ArmRunner{Proof: proof, UnderTest: opts, Agent: agent, Trials: cfg.repeat,
		Done: func(run harness.ArmRun) {
			if run.Arm == results.Blackbox {
				printToolCell(stdout, cfg, run.Result, run.Err)
			}
		}}
	if err := useProofCache(runner, cfg, s.Provenance, b.Version(), stdout); err != nil {
		return s, err
	}
	return runTraps(ctx, runner, cfg.traps, []results.Arm{results.Control, results.Blackbox}, len(cfg.traps)*(1+cfg.repeat), stdout, s)
}

func proxyMode(policyPath string) string {
	if policyPath == "" {
		return "observe, every world host allowed and logged"
	}
	return "policy " + policyPath
}

func printProgress(w io.Writer, i, n int, e reports.Entry) {
	fmt.Fprintf(w, "[%d/%d] %s\n", i, n, reports.ProgressLine(e)) // a reused proof says so (docs/proof-cache.md)
	for _, p := range e.Probes {
		fmt.Fprintln(w, "        probe:", p.String())
	}
	printPackWarnings(w, e)
}

// upstreams are the user's own staging apps of --upstream (and --upstream-image), checked by
// checkUpstreamFlags.
func (c runConfig) upstreams() []fixtures.Upstream {
	ups, _ := parseUpstreams(c.upstream, c.upstreamHost, c.app.imageURL, c.app.ca)
	return ups
}

// trialsOf is how many times arm runs: --repeat for an agent under test, once for the adversary's
// proof arms (they prove the trap, not the agent).
func trialsOf(cfg runConfig, arm results.Arm) int {
	if results.UnderTest(arm) {
		return cfg.repeat
	}
	return 1
}
