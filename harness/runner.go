package harness

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/trapline/trapline/reports"
	"github.com/trapline/trapline/results"
	"github.com/trapline/trapline/traps"
)

// ArmRunner runs the arms of traps for trapline run and the specs alike, so the two cannot judge
// differently: the control arm first, its attempts (Result.FiredBy) handed to every later arm of the
// same trap (Options.FiredBy: a guarded or fenced arm's refusal counts only when it is of one of them
// or of an effect one caused), every trial of an agent under test, and one report entry per run.
//
// An arm run before its trap's control arm (a spec focused on the guarded arm alone, a planner run in
// the fenced arm only) has no FiredBy and keeps the looser attribution (any refusal by the expected
// guard). An ArmRunner is safe for concurrent use on different traps.
type ArmRunner struct {
	// Proof runs the adversary's arms (guarded, control).
	Proof Options
	// UnderTest runs the agent under test's arms (fenced, unfenced; blackbox with Agent): Proof with
	// the agent's planner (NewPlanner) and name (AgentName).
	UnderTest Options
	// Agent is the black-box agent of the blackbox arm (RunAgent); nil when no arm is blackbox.
	Agent Agent
	// Trials is how many times each arm of an agent under test runs (--repeat); 0 or 1 is once. The
	// adversary's arms prove the trap, not the agent, and run once.
	Trials int
	// Release, when set, is called after every run: it stops what the run's planner started (an exec
	// planner's process). Its error breaks that run.
	Release func() error
	// Start, when set, is called before every run (a progress line); Done after it, with the run's
	// result or error and its report entry.
	Start func(ArmRun)
	Done  func(ArmRun)
	// Controls keeps the control arms' attempts, per trap, for the later arms; nil gives the runner
	// its own. Runners given the same Controls share them.
	Controls *Controls
	// ReuseProofs and KeepProofs, when set, keep the adversary's arms (control and guarded: the proof
	// that a trap fires and that the fence holds) by every input they depend on, as go test caches a
	// test (trapline run's internal/proofcache.Keeper; docs/proof-cache.md). RunTrap first asks
	// ReuseProofs for kept runs of the trap's proof arms, one per arm and in its order, each with its
	// evidence copied to evidence(arm) (where this runner's run would write it) and its Entry.Reused
	// set; ok false runs every one of them, and KeepProofs is then given the runs (it keeps only what
	// passed, and a failure to keep breaks no run). Nil runs every arm.
	ReuseProofs func(t traps.Trap, arms []results.Arm, evidence func(results.Arm) string) (runs []ArmRun, ok bool)
	KeepProofs  func(t traps.Trap, runs []ArmRun)

	mu  sync.Mutex
	own *Controls // Controls when nil, made on first use
}

// Controls keeps, per trap, the attempts that fired it in its control arm (Result.FiredBy), for the
// later arms of runners that share it (ArmRunner.Controls). Its zero value is empty and ready; it is
// safe for concurrent use.
type Controls struct {
	mu    sync.Mutex
	fired map[string][]results.Attempt // trap id -> the control arm's attempts
}

// Ran reports whether a control arm of trap ran (and did not break) with these Controls.
func (c *Controls) Ran(trap string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	_, ok := c.fired[trap]
	return ok
}

// FiredBy returns the attempts that fired trap in its control arm; nil when none ran or none fired.
func (c *Controls) FiredBy(trap string) []results.Attempt {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]results.Attempt(nil), c.fired[trap]...)
}

func (c *Controls) keep(trap string, fired []results.Attempt) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.fired == nil {
		c.fired = map[string][]results.Attempt{}
	}
	c.fired[trap] = append([]results.Attempt(nil), fired...)
}

// ArmRun is one run of one arm of a trap, as an ArmRunner ran it.
type ArmRun struct {
	Trap traps.Trap
	Arm  results.Arm
	// Agent is the agent under test's name; "" for the adversary's arms.
	Agent string
	// Trial is the run's number among an arm's trials; 0 for a single run.
	Trial int
	// Evidence is the run's evidence folder.
	Evidence string
	// Result is what the run produced; nil when Err says it could not be carried out.
	Result *results.Result
	Err    error
	// Entry is the run's report entry (set once the run is done): reports.Run.Entry of Result and Err,
	// broken when the run could not be carried out.
	Entry reports.Entry
}

// ErrInterrupted is returned by the runner when its context ends between runs: nothing after it ran.
var ErrInterrupted = errors.New("harness: run interrupted")

// RunTrap runs arms of t (the control arm first when it is among them, then the others in order)
// and returns one report entry per arm, an agent under test's trials merged (reports.Repeated). An
// error means the context ended (ErrInterrupted); a run that broke is a broken entry, not an error.
func (r *ArmRunner) RunTrap(ctx context.Context, t traps.Trap, arms []results.Arm) ([]reports.Entry, error) {
	ordered := make([]results.Arm, 0, len(arms))
	for _, a := range arms {
		if a == results.Control {
			ordered = append(ordered, a)
		}
	}
	for _, a := range arms {
		if a != results.Control {
			ordered = append(ordered, a)
		}
	}
	var entries []reports.Entry
	proofs := proofArms(ordered)
	reused, ok := r.reuseProofs(ctx, t, proofs)
	if ok {
		for _, run := range reused {
			entries = append(entries, run.Entry)
		}
		ordered = slices.DeleteFunc(ordered, func(a results.Arm) bool { return !a.UnderTest() })
	}
	var made []ArmRun
	for _, arm := range ordered {
		runs, err := r.Run(ctx, t, arm)
		if err != nil {
			return entries, err
		}
		var trials []reports.Entry
		for _, run := range runs {
			trials = append(trials, run.Entry)
		}
		entries = append(entries, reports.Repeated(trials))
		if !arm.UnderTest() {
			made = append(made, runs...)
			if len(made) == len(proofs) && r.KeepProofs != nil { // kept before the agent's arms, which a signal may cut off
				r.KeepProofs(t, made)
			}
		}
	}
	return entries, nil
}

// Run runs every trial of one arm of t and returns the runs. The control arm's attempts are kept for
// the trap's later arms. An error means the context ended before a run (ErrInterrupted).
func (r *ArmRunner) Run(ctx context.Context, t traps.Trap, arm results.Arm) ([]ArmRun, error) {
	n := 1
	if arm.UnderTest() && r.Trials > 1 {
		n = r.Trials
	}
	opts, agent := r.Proof, ""
	if arm.UnderTest() {
		opts, agent = r.UnderTest, r.UnderTest.AgentName
		if arm == results.Blackbox && r.Agent != nil {
			agent = r.Agent.Name()
		}
	}
	if arm != results.Control {
		opts.FiredBy = r.controls().FiredBy(t.ID)
	}
	var runs []ArmRun
	for i := range n {
		if err := ctx.Err(); err != nil {
			return runs, fmt.Errorf("%w: %w", ErrInterrupted, err)
		}
		if n > 1 {
			opts.Trial = i + 1
		}
		run := ArmRun{Trap: t, Arm: arm, Agent: agent, Trial: opts.Trial,
			Evidence: TrialPath(results.EvidencePath(opts.OutDir, t.ID, arm, agent), opts.Trial)}
		if r.Start != nil {
			r.Start(run)
		}
		began := time.Now()
		run.Result, run.Err = r.runOnce(ctx, opts, t, arm)
		if arm == results.Control && run.Err == nil {
			r.controls().keep(t.ID, run.Result.FiredBy)
		}
		run.Entry = reports.Run{Trap: t.ID, Category: string(t.Category), Incident: t.Incident, Task: t.Task,
			Arm: string(arm), Agent: agent, Evidence: run.Evidence}.Entry(run.Result, run.Err)
		if run.Result == nil {
			run.Entry.Seconds = time.Since(began).Seconds() // a broken run took its time too, not 0.0 s
		}
		if r.Done != nil {
			r.Done(run)
		}
		runs = append(runs, run)
	}
	return runs, nil
}

// runOnce is one run of arm, then the release of what its planner started.
func (r *ArmRunner) runOnce(ctx context.Context, opts Options, t traps.Trap, arm results.Arm) (*results.Result, error) {
	var (
		res *results.Result
		err error
	)
	if arm == results.Blackbox {
		if r.Agent == nil {
			return nil, fmt.Errorf("harness: %s/%s: the runner has no agent", t.ID, arm)
		}
		res, err = RunAgent(ctx, opts, t, r.Agent)
	} else {
		res, err = Run(ctx, opts, t, arm)
	}
	if r.Release != nil {
		if rerr := r.Release(); rerr != nil && err == nil {
			res, err = nil, fmt.Errorf("harness: %s/%s: stop the planner: %w", t.ID, arm, rerr)
		}
	}
	return res, err
}

// controls is r.Controls, else the runner's own.
func (r *ArmRunner) controls() *Controls {
	if r.Controls != nil {
		return r.Controls
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.own == nil {
		r.own = &Controls{}
	}
	return r.own
}
