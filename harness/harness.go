// Package harness runs one trap in one arm: it starts a fresh world, opens a browser session behind the
// world's proxy, runs the reference agent (or, in the blackbox arm, an agent under test), closes
// everything, and collects what the outside observers saw. Specs assert on the Result; trapline's commands print it.
//
//	res, err := harness.Run(ctx, harness.Options{Browser: b, Guarded: ref, Control: permissive, OutDir: dir},
//		trap, results.Guarded)
//
// Arms:
//   - Guarded: the reference policy, in exploration mode (on_violation block_and_log, so the adversary
//     tries every dangerous thing and every attempt must be stopped); no forbidden effect may happen and
//     every expected guard must fire.
//   - Control: the same planner under the permissive policy; the forbidden effect must happen, or the
//     trap proves nothing.
//   - Blackbox: an agent trapline did not write (RunAgent, an Agent such as a Command), on a
//     CDP-exposed Chromium behind the world's proxy; it holds when no outside observer saw a forbidden
//     effect or a canary hit on a run that reached the trap's start page. See docs/external-agents.md.
package harness

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/trapline/trapline/agentkit"
	"github.com/trapline/trapline/agentkit/browser"
	"github.com/trapline/trapline/agentkit/credentials"
	"github.com/trapline/trapline/agentkit/evidence"
	"github.com/trapline/trapline/agentkit/planner"
	"github.com/trapline/trapline/agentkit/planner/adversary"
	"github.com/trapline/trapline/agentkit/policy"
	"github.com/trapline/trapline/fixtures"
	"github.com/trapline/trapline/proxy"
	"github.com/trapline/trapline/results"
	"github.com/trapline/trapline/traps"
	"github.com/trapline/trapline/world"
)

// downloadsDir is the run's download folder, inside its evidence folder: every file in it after the run
// is an effect seen on disk.
const downloadsDir = "downloads"

// Options configures Run and RunAgent. The zero value of a field is its default (withDefaults, the
// one place defaults are applied); what cannot run the arm is refused before anything starts, with an
// ErrInvalidOptions naming the field (Options.Guarded: nil, Options.Video: ...).
type Options struct {
	Browser *browser.Browser
	// Guarded is the reference policy; Control the permissive one.
	Guarded, Control *policy.Policy
	// OutDir is the evidence root; each run writes OutDir/<trap>/<arm>/.
	OutDir string
	// Trace records a Playwright trace per run.
	Trace bool
	// Video is VideoOff (""), VideoFailing or VideoAll: the page's video per run (video.go).
	Video string
	// TraceDetail is what each trace records besides the action and network log; default
	// browser.TraceDefault (TRAPLINE_TRACE as the browser's Options.Environ has it, else the action,
	// console and network log only).
	TraceDetail browser.TraceDetail
	// NewPlanner makes the default planner for a run (a trap's Arrange hook may still replace it); nil
	// means the adversary.
	NewPlanner func(traps.Trap, results.Arm) planner.Planner

	// BlackboxPolicy is what the proxy enforces in RunAgent's black-box runs: the user's deployment
	// fence. nil is observe mode: every world host is allowed and logged (nothing outside the world is
	// reachable), so the agent's own fence is what is judged.
	BlackboxPolicy *policy.Policy
	// Chromium is the browser RunAgent launches for the agent; default browser.Executable("",
	// Environ): TRAPLINE_CHROMIUM as Environ has it, else full Chromium.
	Chromium string
	// Environ is the process environment the harness's child processes start from, as KEY=VALUE
	// pairs: the caller passes os.Environ(), since the harness reads no environment itself. RunAgent's
	// Chromium starts in it (browser.CDPOptions.Environ), an agent under test inherits it (Env.Environ;
	// Command and the agent tools take the proxy variables out) and the state probe and reset commands
	// see it. Nil is an error when one of them is about to start, never an empty environment (in
	// which an agent's interpreter would find no PATH or HOME); []string{} is an empty one.
	Environ []string
	// AgentTimeout bounds one black-box run; default DefaultAgentTimeout.
	AgentTimeout time.Duration
	// Extensions are unpacked browser extensions RunAgent loads into the black-box browser (an agent
	// that lives in a Manifest V3 extension; browser.CDPOptions.Extensions).
	Extensions []string
	// WholeBrowser gives each black-box run a Chromium of its own whose DevTools port the agent
	// reaches directly, instead of a one-run browser behind a filtered endpoint: for an agent that
	// loads its own extension over CDP and dials the browser's DevTools port from inside it
	// (Stagehand 4), which the world's proxy then lets through its DevTools door for the browser's
	// own extensions only (proxy.DevToolsDoor). The whole browser goes through the world's proxy:
	// in observe mode (no BlackboxPolicy) Chromium's own requests to Google's hosts are judged as the
	// agent's outside requests. Extensions imply it; SharedCDP is then not used.
	WholeBrowser bool
	// SharedCDP, when set and neither Extensions nor WholeBrowser is, is the browser RunAgent gives each black-box run a
	// fresh browser context of (browser.SharedCDP: no DevTools port but the run's own, every context
	// behind the run's world proxy, nothing of a run left when it ends) instead of launching a
	// Chromium per run; the run's world then intercepts HTTPS with the browser's CA. Runs on one
	// SharedCDP go one at a time.
	SharedCDP *browser.SharedCDP
	// World starts each run's world; nil means world.Embedded{} (in process).
	World world.Launcher
	// Upstreams are users' own staging apps every run's world serves beside the built-in sites (a
	// pack's traps against them name the host with start_host); embedded worlds only.
	Upstreams []fixtures.Upstream
	// Trial numbers a repeated run of an agent under test (1, 2, ...; 0 is a single run): its evidence
	// goes to a folder of its own (TrialPath) and its result carries the number.
	Trial int
	// AgentName names the agent under test of the fenced and unfenced arms (letters, digits and
	// dashes): their evidence goes to OUT/<trap>/<arm>-<name> and the result carries it.
	AgentName string
	// Mutate, when set, changes the guarded arm's setup after the trap's Arrange hook: a mutation run
	// (package mutate) switches one guard off this way. Nil in every normal run.
	Mutate func(*traps.Setup)
	// FiredBy are the attempts that fired the trap in its control arm (that run's Result.FiredBy): a
	// guarded or fenced arm given them credits a refusal only when it refused one of them. Nil keeps
	// the looser attribution (any refusal of an agent's attempt).
	FiredBy []results.Attempt
	// StorageState is a Playwright storage-state file every run's context starts from (a trap may set
	// its own); `trapline run --storage-state FILE`. Never written into the evidence.
	StorageState string
	// KeepAppStorage keeps the storage state's local storage of the user's own apps (Upstreams'
	// hosts: a single-page app's session lives there); every other origin's is still stripped.
	// `trapline run --keep-app-storage`.
	KeepAppStorage bool
	// Login, when set, is the deterministic login every arm starts with (its password resolved), in
	// place of a trap's login:; `trapline run --login FILE`.
	Login *credentials.Login
	// ProbeCommand, when set, reads every trap's state probe instead of its own get or command: a
	// program and its arguments (no shell) whose standard output is the state as JSON; `trapline run
	// --probe-cmd`. See traps.Probe.
	ProbeCommand []string
	// ResetCommand, when set, is run before every arm instead of the trap's own reset (a pack's
	// reset:): a program and its arguments (no shell) that puts the user's app back in its seeded
	// state, so that arms never share state; `trapline run --reset-cmd`. It sees TRAPLINE_TRAP,
	// TRAPLINE_ARM, TRAPLINE_UPSTREAM_URL and TRAPLINE_UPSTREAM_<HOST>_URL. A failure breaks the arm.
	ResetCommand []string
}

// Run runs trap in arm and returns what was observed. An error means the run could not be carried out
// (the fixture broke), which is different from a trap that fired.
func Run(ctx context.Context, o Options, trap traps.Trap, arm results.Arm) (*results.Result, error) {
	o, err := o.withDefaults(arm)
	if err != nil {
		return nil, fmt.Errorf("harness: %s/%s: %w", trap.ID, arm, err)
	}
	pol := armPolicy(o, arm)
	setup := &traps.Setup{Policy: pol, Planner: adversary.New(), StorageState: o.StorageState}
	if o.NewPlanner != nil {
		setup.Planner = o.NewPlanner(trap, arm)
	}
	dir := TrialPath(results.EvidencePath(o.OutDir, trap.ID, arm, o.AgentName), o.Trial)
	fx, err := prepare(trap, arm, setup, dir)
	if err != nil {
		return nil, err
	}
	fx.Upstreams = append(fx.Upstreams, o.Upstreams...)
	if err := arrangeLogin(o, trap, setup); err != nil {
		return nil, err
	}
	preferFiredBy(o, trap, arm, setup)
	if arm == results.Guarded && o.Mutate != nil {
		o.Mutate(setup)
	}
	if setup.Off != 0 { // one off-set, passed down as it is: Decide's guards read it from the policy
		setup.Policy = setup.Policy.WithGuardsOff(setup.Policy.GuardsOff() | setup.Off)
	}
	limit, err := fenceLimit(o, trap, arm, setup)
	if err != nil {
		return nil, fmt.Errorf("harness: %s/%s: %w", trap.ID, arm, err)
	}
	if err := checkStartHost(o, trap); err != nil {
		return nil, err
	}
	if err := resetState(ctx, o, trap, arm); err != nil {
		return nil, err
	}
	before, err := probeBefore(ctx, o, trap)
	if err != nil {
		return nil, err
	}
	w, err := startWorld(ctx, o, trap, world.Spec{Policy: setup.Policy, Fixtures: fx, Dir: dir, Off: setup.Off})
	if err != nil {
		return nil, fmt.Errorf("harness: %s/%s: %w", trap.ID, arm, err)
	}
	res, looped, runErr := runAgent(ctx, o, setup, trap, arm, w, dir)
	closeErr := w.Close()
	if err := errors.Join(runErr, closeErr, sealEvidence(dir, setup)); err != nil {
		return nil, fmt.Errorf("harness: %s/%s: %w", trap.ID, arm, err)
	}
	if results.UnderTest(arm) {
		res.Agent = o.AgentName
	}
	res.Trial = o.Trial
	if err := afterRun(ctx, o, trap, arm, res, w, dir, limit, before, looped); err != nil {
		return nil, err
	}
	if err := keepVideo(o.Video, res, dir); err != nil {
		return nil, err
	}
	if err := writeResult(dir, res, setup); err != nil {
		return nil, err
	}
	if script := scriptOf(setup.Planner); script != "" && res.PlannerFailure != "" {
		// The diligent or attack script could not take a step (its target matched no element, or
		// several: a step by role and name must name one): it did not do what it states, so the arm
		// is broken with the reason, whatever it reached; never a pass, never a guess.
		return nil, fmt.Errorf("harness: %s/%s: %w: the %s script could not go on: %s", trap.ID, arm, ErrAgentBroken, script, res.PlannerFailure)
	}
	if j := results.Judge(res); j.Verdict == results.Broken {
		// An agent under test that could not act tested nothing: the run is broken, never held (its
		// result.json stays, for the evidence).
		return nil, fmt.Errorf("harness: %s/%s: %w: %s", trap.ID, arm, ErrAgentBroken, j.Reason)
	}
	return res, nil
}

// prepare cleans the run's evidence folder, builds the trap's fixture configuration and lets the trap
// arrange the arm's setup.
func prepare(trap traps.Trap, arm results.Arm, setup *traps.Setup, dir string) (fixtures.Config, error) {
	if err := traps.CheckPages(); err != nil {
		return fixtures.Config{}, fmt.Errorf("harness: %s: %w", trap.ID, err)
	}
	if err := os.RemoveAll(dir); err != nil {
		return fixtures.Config{}, fmt.Errorf("harness: clean %s: %w", dir, err)
	}
	fx := trap.Fixtures()
	arrange(trap, arm, setup)
	if setup.Policy != nil {
		p, err := trap.ApplyPolicyPatch(arm.Proof(), setup.Policy)
		if err != nil {
			return fixtures.Config{}, fmt.Errorf("harness: %w", err)
		}
		setup.Policy = p
	}
	return fx, nil
}

// startWorld is the one place a run's world is started, whoever the agent is: o.World's launcher, or
// the embedded world.
func startWorld(ctx context.Context, o Options, trap traps.Trap, spec world.Spec) (world.World, error) {
	src, err := WorldSource(trap) // what a world in another process rebuilds the fixtures from
	if err != nil {
		return nil, err
	}
	spec.Source = src
	if o.Browser != nil && spec.CA == nil {
		spec.CA = o.Browser.CA() // the only CA the browser trusts: its HTTPS is intercepted and judged
	}
	return o.World.Launch(ctx, spec) // withDefaults: the embedded world when unset
}

// observe fills res with what the outside observers saw once the world is closed: the backend's and
// the canaries' effects, the files in the download folder, the forbidden ones among them, and the
// proxy's decisions.
func observe(res *results.Result, trap traps.Trap, w world.World, dir string) error {
	disk, err := diskEffects(filepath.Join(dir, downloadsDir))
	if err != nil {
		return err
	}
	seen, err := browserDownloadEffects(dir, filepath.Join(dir, downloadsDir))
	if err != nil {
		return err
	}
	disk = append(disk, seen...)
	effects, err := w.Effects()
	if err != nil { // unknown is not absent: a run whose effects cannot be read proves nothing
		return fmt.Errorf("harness: %s: %w", trap.ID, err)
	}
	decisions, err := w.ProxyDecisions()
	if err != nil {
		return fmt.Errorf("harness: %s: %w", trap.ID, err)
	}
	res.Effects = append(effects, disk...)
	worldHosts := w.Hosts()
	measureTask(res, trap, nil) // afterRun measures it again with the probe's reading
	start, err := url.Parse(StartURL(w, trap))
	if err != nil {
		return fmt.Errorf("harness: start URL: %w", err)
	}
	res.Effects = append(res.Effects, outsideEffects(decisions, worldHosts, len(res.Effects))...)
	res.Forbidden = trap.Observed(res.Effects)
	for _, d := range decisions {
		if d.Choice == proxy.Deny {
			res.ProxyDenied++
			// The proxy is the fence's second layer: its denials of the world's own hosts are guards
			// that fired too. Denials of other hosts are the browser's own chatter (autofill, update
			// checks) and say nothing about the trap.
			host, _, _ := strings.Cut(d.Host, ":")
			if slices.Contains(worldHosts, host) {
				res.ProxyGuards = append(res.ProxyGuards, d.Rule)
				res.ProxyStops = append(res.ProxyStops, results.Stop{Rule: d.Rule, Layer: policy.LayerProxy,
					Target: results.Attempt{Method: d.Method, Host: d.Host, Path: d.Path}, At: d.Time})
				if !slices.Contains(res.GuardsFired, d.Rule) {
					res.GuardsFired = append(res.GuardsFired, d.Rule)
				}
			}
		} else {
			res.ProxyAllowed++
			if (d.Host == start.Host || slices.Contains(trap.Fixtures().PortalAliases, d.Host)) && d.Path == start.Path {
				res.StartLoaded = true
			}
		}
	}
	return nil
}

// outsideEffects are the proxy's requests for hosts outside the world (observer outside, kind
// fixtures.KindOutsideRequest), whatever the proxy decided: the world maps worldHosts and dials
// nothing else, so every other host is outside. A host's port, if any, is not part of the test. seq is
// the number of effects recorded before them.
func outsideEffects(decisions []proxy.Decision, worldHosts []string, seq int) []fixtures.Effect {
	var out []fixtures.Effect
	for _, d := range decisions {
		host := d.Host
		if h, _, err := net.SplitHostPort(d.Host); err == nil {
			host = h
		}
		if host == "" || slices.Contains(worldHosts, host) {
			continue
		}
		seq++
		out = append(out, fixtures.Effect{Seq: seq, Observer: fixtures.ObserverOutside, Kind: fixtures.KindOutsideRequest,
			Method: d.Method, Host: d.Host, Path: d.Path, At: d.Time, Detail: fmt.Sprintf("host %s: %s %s (%s)", host, d.Scheme, d.Choice, d.Rule)})
	}
	return out
}

// armPolicy is the arm's policy, a copy a trap's Arrange hook may change (validate checked it is set).
func armPolicy(o Options, arm results.Arm) *policy.Policy {
	switch arm {
	case results.Guarded:
		p := o.Guarded.Clone()
		p.Navigation.OnViolation = policy.BlockAndLog // exploration: every attempt must be stopped
		return p
	case results.Fenced:
		return o.Guarded.Clone() // as deployed: its own on_violation
	}
	return o.Control.Clone() // control, unfenced
}

// runAgent runs the arm's agent (the loop, or the trap's own page agent) in a session behind w's proxy;
// looped says it was the loop, whose action log the evidence holds.
func runAgent(ctx context.Context, o Options, setup *traps.Setup, trap traps.Trap, arm results.Arm, w world.World, dir string) (res *results.Result, looped bool, err error) {
	drv, err := resolveDriver(trap, arm, setup)
	if err != nil {
		return nil, false, err
	}
	if setup.Login != nil {
		setup.Secrets = append(setup.Secrets, setup.Login.Password)
	}
	state, cleanState, err := storageStateFile(setup)
	if err != nil {
		return nil, false, err
	}
	defer cleanState()
	if err := checkStorageHosts(state, w.Hosts()); err != nil {
		return nil, false, err
	}
	rec, err := evidence.Open(dir, evidence.NewRedactor(setup.Secrets...))
	if err != nil {
		return nil, false, err
	}
	sess, err := o.Browser.NewSession(browser.SessionOptions{ProxyURL: w.ProxyURL(), Policy: setup.Policy, Recorder: rec,
		Trace: o.Trace, TraceDetail: o.TraceDetail, Video: recordsVideo(o.Video), Off: setup.Off, StorageStatePath: state, KeepStorageOrigins: setup.KeepStorageOrigins,
		KeepStorageHosts: appHosts(o), Approver: setup.Approver})
	cleanState()
	if err != nil {
		return nil, false, errors.Join(err, rec.Close())
	}
	if setup.Login != nil {
		if err := sess.Login(ctx, *setup.Login); err != nil {
			return nil, false, errors.Join(fmt.Errorf("harness: %w: %w", errLoginFailed, err), sess.Close(), rec.Close())
		}
	}
	if drv.hook != nil {
		if err := drv.hook(sess); err != nil {
			return nil, false, errors.Join(fmt.Errorf("harness: %s: prepare the session: %w", trap.ID, err), sess.Close(), rec.Close())
		}
	}
	startURL, err := armStartURL(w, trap, setup)
	if err != nil {
		return nil, false, errors.Join(err, sess.Close(), rec.Close())
	}
	task := agentkit.Task{StartURL: startURL, Goal: trap.Task}
	var (
		out    agentkit.Result
		runErr error
	)
	if drv.agent != nil {
		out, runErr = drv.agent(ctx, sess, task)
	} else {
		ag := &agentkit.Agent{Policy: setup.Policy, Planner: setup.Planner, Secrets: setup.Secrets, Off: setup.Off, Approver: setup.Approver}
		out, runErr = ag.Run(ctx, sess, rec, task)
	}
	closeErr := sess.Close()
	// The violations are read once the session is closed, not when the loop returned: Close lets the
	// page's last requests reach the route gate (a click's fetch the driver reported only after the
	// agent's "done"), and a refusal the gate recorded then is in the evidence and is a guard that
	// fired. Read earlier, the evidence showed the refusal while the verdict said "fired: none"
	// (method-swap's guarded arm, stop 38).
	out.Violations = rec.Violations()
	err = errors.Join(runErr, closeErr, rec.Close())
	if err != nil {
		return nil, false, err
	}
	return loopResult(trap, arm, dir, out, drv.agent == nil), drv.agent == nil, nil
}

// loopResult is the result of an arm the loop (looped) or the trap's own page agent ran, as out says
// it went: the outside observers' part is added later (afterRun).
func loopResult(trap traps.Trap, arm results.Arm, dir string, out agentkit.Result, looped bool) *results.Result {
	res := &results.Result{Trap: trap.ID, Category: string(trap.Category), Arm: arm, Outcome: out.Outcome, Reason: out.Reason,
		Violations: out.Violations, EvidenceDir: dir, Duration: out.Duration, PlannerFailure: out.PlannerFailure,
		DeliveryTrouble: out.DeliveryTrouble}
	if out.TokensCounted {
		res.Tokens = &out.Tokens
	}
	if looped {
		res.Decisions = &out.Decisions
	}
	if out.Done != nil {
		res.Postcondition = out.Done.Postcondition
		if out.Outcome == agentkit.Completed {
			res.Answer = out.Done.Answer
		}
	}
	res.ExpectedGuards = append(res.ExpectedGuards, trap.Guards...)
	for _, v := range out.Violations {
		if !slices.Contains(res.GuardsFired, v.Rule) {
			res.GuardsFired = append(res.GuardsFired, v.Rule)
		}
	}
	return res
}

// diskEffects lists the files a run left in its download folder: each is a fact on disk.
func diskEffects(dir string) ([]fixtures.Effect, error) {
	entries, err := os.ReadDir(dir)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("harness: read download folder %s: %w", dir, err)
	}
	var out []fixtures.Effect
	for _, e := range entries {
		info, err := e.Info()
		if err != nil {
			return nil, fmt.Errorf("harness: stat %s: %w", e.Name(), err)
		}
		out = append(out, fixtures.Effect{Observer: traps.ObserverDisk, Kind: traps.KindFileSaved, Path: e.Name(),
			At: info.ModTime(), Detail: fmt.Sprintf("%d bytes", info.Size())})
	}
	return out, nil
}

// scriptOf names the trap's own script p is ("diligent", "attack"), "" for any other planner.
func scriptOf(p planner.Planner) string {
	switch {
	case traps.IsDiligent(p):
		return "diligent"
	case traps.IsAttack(p):
		return "attack"
	}
	return ""
}
