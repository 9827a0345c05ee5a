package mutate

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/trapline/trapline/agentkit/browser"
	"github.com/trapline/trapline/agentkit/policy"
	"github.com/trapline/trapline/harness"
	"github.com/trapline/trapline/proxy"
	"github.com/trapline/trapline/reports"
	"github.com/trapline/trapline/results"
	"github.com/trapline/trapline/traps"
)

// Config configures Run.
type Config struct {
	// Original is the unmutated guarded policy: a trap that kills a mutant is first run under it, once,
	// to confirm that it holds there (otherwise the kill is the trap's, not the mutant's).
	Original *policy.Policy
	// Control is the permissive policy of the control arms (trapline run's --control-policy): each
	// trap's control arm runs once, and the attempts that fired it there (Result.FiredBy) are handed to
	// every guarded arm of the trap, the baseline's and each mutant's, through the one arm runner
	// (harness.ArmRunner), so a mutant is judged as trapline run judges the same policy.
	Control *policy.Policy
	// PolicyFile names the original policy in the result.
	PolicyFile string
	// Mutants to run, in the order they are reported.
	Mutants []Mutant
	// Traps is the catalog to run against each mutant.
	Traps []traps.Trap
	// Equivalent maps a mutant id to the reason it is declared equivalent to the original fence. A
	// declared mutant still runs: surviving, it is reported equivalent; killed, it is reported killed
	// and the declaration flagged as wrong.
	Equivalent map[string]string
	// All runs every trap against every mutant instead of stopping at the first kill.
	All bool
	// Workers run mutants in parallel, each with its own browser; default 1.
	Workers int
	// OutDir holds each mutant's evidence (OutDir/<nnn-mutant>/<trap>/guarded).
	OutDir string
	// NoPrune runs every trap that holds under the original policy against every mutant, instead of
	// only the traps whose baseline run recorded a denial the mutant covers (Mutant.Covers).
	NoPrune bool
	// RunTimeout bounds one guarded run; default 2 minutes.
	RunTimeout time.Duration
	// Launch starts a worker's browser; default browser.Launch with default options in Environ.
	Launch func() (*browser.Browser, error)
	// Environ is the process environment (the caller passes os.Environ()): the default Launch's
	// browser.Options.Environ and the runs' harness.Options.Environ. Nil makes those fail, as there.
	Environ []string
	// Progress, when set, gets one line per finished mutant.
	Progress io.Writer
}

// Run runs the catalog's guarded arms once under the original policy (the baseline: which traps
// hold, and which rules said no in each), then every mutant against the traps that can kill it, and
// returns the result. It returns an error only when it could not run at all (no browser); a run that
// breaks makes its mutant broken.
func Run(ctx context.Context, c Config) (reports.Mutation, error) {
	if c.Original == nil || c.Control == nil {
		return reports.Mutation{}, errors.New("mutate: Config.Original and Config.Control are required")
	}
	if c.Workers < 1 {
		c.Workers = 1
	}
	if c.RunTimeout == 0 {
		c.RunTimeout = 2 * time.Minute
	}
	if c.Launch == nil {
		c.Launch = func() (*browser.Browser, error) { return browser.Launch(browser.Options{Environ: c.Environ}) }
	}
	start := time.Now()
	r := &runner{c: c, stats: map[string]map[string]int{}, baseline: map[string]*baselineEntry{}, controls: &harness.Controls{}}
	out := reports.Mutation{Policy: c.PolicyFile, AllTraps: c.All, Pruned: !c.NoPrune, Workers: c.Workers,
		Mutants: make([]reports.MutantResult, len(c.Mutants))}
	for _, t := range c.Traps {
		out.Catalog = append(out.Catalog, t.ID)
	}
	needed := slices.ContainsFunc(c.Mutants, needsRun)
	var browsers []*browser.Browser
	defer func() {
		for _, b := range browsers {
			_ = b.Close()
		}
	}()
	if needed {
		for range c.Workers {
			b, err := c.Launch()
			if err != nil {
				return out, fmt.Errorf("mutate: launch a browser: %w", err)
			}
			browsers = append(browsers, b)
		}
		// Phase 1: the baseline, each trap's control arm and its guarded arm under the original policy.
		pool(ctx, browsers, len(c.Traps), func(b *browser.Browser, i int) { r.runBaseline(ctx, b, c.Traps[i]) })
		out.Baseline = r.baselineRuns()
		if c.Progress != nil {
			held := 0
			for _, br := range out.Baseline {
				if br.Pass {
					held++
				}
			}
			fmt.Fprintf(c.Progress, "baseline: %d of %d traps hold under the original policy (%.0fs)\n", held, len(out.Baseline), time.Since(start).Seconds())
		}
	}
	// Phase 2: the mutants.
	var (
		mu   sync.Mutex
		done int
	)
	pool(ctx, browsers, len(c.Mutants), func(b *browser.Browser, i int) {
		res := r.mutant(ctx, b, i, c.Mutants[i])
		mu.Lock()
		defer mu.Unlock()
		out.Mutants[i] = res
		done++
		if c.Progress != nil {
			fmt.Fprintf(c.Progress, "[%d/%d] %s %s %s (%.1fs)\n", done, len(c.Mutants), strings.ToUpper(res.Status), res.ID, detail(res, c.All), res.Seconds)
		}
	})
	for i, res := range out.Mutants {
		if res.ID == "" { // never dispatched: the context ended first
			res = base(c.Mutants[i])
			res.Status, res.Reason = reports.MutantBroken, "not run: cancelled"
			out.Mutants[i] = res
		}
	}
	out.Runs = int(r.runs)
	out.WallSecs = time.Since(start).Seconds()
	out.Finish(time.Now())
	return out, nil
}

// pool runs f(b, i) for i in [0, n) on len(browsers) workers, each with its own browser; with no
// browser it runs f(nil, i) serially (nothing to run in a browser).
func pool(ctx context.Context, browsers []*browser.Browser, n int, f func(*browser.Browser, int)) {
	if len(browsers) == 0 {
		for i := range n {
			f(nil, i)
		}
		return
	}
	jobs := make(chan int)
	var wg sync.WaitGroup
	for _, b := range browsers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range jobs {
				f(b, i)
			}
		}()
	}
	for i := range n {
		if ctx.Err() != nil {
			break
		}
		jobs <- i
	}
	close(jobs)
	wg.Wait()
}

func needsRun(m Mutant) bool { return m.Invalid == nil && m.Equivalent == "" }

func detail(r reports.MutantResult, all bool) string {
	switch r.Status {
	case reports.MutantKilled:
		return reports.KillSummary(r, all)
	case reports.MutantSurvived:
		if r.Reason != "" {
			return "weakens " + r.Guard + "; " + r.Reason
		}
		return fmt.Sprintf("weakens %s; %d traps held", r.Guard, len(r.Tried))
	}
	return r.Reason
}

func base(m Mutant) reports.MutantResult {
	return reports.MutantResult{ID: m.ID, Kind: m.Kind, Guard: m.Guard, Desc: m.Desc}
}

// runner is the state shared by the workers.
type runner struct {
	c Config

	mu       sync.Mutex
	runs     int64
	stats    map[string]map[string]int // mutant class -> trap -> kills, to try likely killers first
	baseline map[string]*baselineEntry // trap -> its guarded arm under the original policy
	controls *harness.Controls         // each trap's control arm's attempts, for every guarded arm
}

type baselineEntry struct {
	run     reports.BaselineRun
	denials []Denial
	err     error
}

// runBaseline runs t's control arm (its attempts then judge every guarded arm of t), then t's
// guarded arm under the original policy; a trap that fails there is run once more (a
// timing-sensitive trap on a loaded machine), and excluded from killing if it fails again. A trap
// whose control arm did not fire proves nothing, as in trapline run: it is excluded too.
func (r *runner) runBaseline(ctx context.Context, b *browser.Browser, t traps.Trap) {
	e := &baselineEntry{run: reports.BaselineRun{Trap: t.ID}}
	dir := filepath.Join(r.c.OutDir, "000-original")
	for attempt := 0; attempt < 2; attempt++ {
		e.run.Retried = attempt > 0
		if !r.controls.Ran(t.ID) || len(r.controls.FiredBy(t.ID)) == 0 {
			if why, err := r.control(ctx, b, dir, t); why != "" || err != nil {
				e.err = err
				e.run.Pass, e.run.Why = false, "control arm: "+why
				if err != nil {
					e.run.Why = "control arm broken: " + err.Error()
				}
				continue
			}
		}
		hr, err := r.run(ctx, b, r.c.Original, nil, dir, t)
		if err == nil {
			e.run.Pass, e.run.Why = hr.Passed()
			e.denials, err = denials(hr)
		}
		e.err = err
		if err != nil {
			e.run.Pass, e.run.Why = false, "broken: "+err.Error()
		}
		if e.run.Pass {
			break
		}
	}
	r.mu.Lock()
	r.baseline[t.ID] = e
	r.mu.Unlock()
}

// control runs t's control arm through the arm runner, which keeps its attempts for t's guarded
// arms; why says why it did not fire ("" when it did).
func (r *runner) control(ctx context.Context, b *browser.Browser, dir string, t traps.Trap) (why string, err error) {
	hr, err := r.arm(ctx, b, nil, nil, dir, t, results.Control)
	if err != nil {
		return "", err
	}
	if pass, why := hr.Passed(); !pass {
		return why, nil
	}
	return "", nil
}

// denials collects every "no" of a run: its violations, its proxy denials and its end reason.
func denials(hr *results.Result) ([]Denial, error) {
	out := []Denial{{Outcome: true, Reason: hr.Reason}}
	for _, v := range hr.Violations {
		d := Denial{Rule: v.Rule, Reason: v.Reason}
		if v.Target != nil {
			d.Name = v.Target.Name
		}
		out = append(out, d)
	}
	f, err := os.Open(filepath.Join(hr.EvidenceDir, "proxy.jsonl"))
	if errors.Is(err, os.ErrNotExist) {
		return out, nil
	}
	if err != nil {
		return nil, fmt.Errorf("mutate: read the proxy log: %w", err)
	}
	defer f.Close()
	dec := json.NewDecoder(f)
	for {
		var pd proxy.Decision
		if err := dec.Decode(&pd); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			return nil, fmt.Errorf("mutate: read the proxy log: %w", err)
		}
		if pd.Choice == proxy.Deny {
			out = append(out, Denial{Rule: pd.Rule, Reason: pd.Reason, Host: pd.Host})
		}
	}
	return out, nil
}

// candidates are the traps that can kill m: they hold under the original policy and, when m says
// what it covers, recorded a denial it covers.
func (r *runner) candidates(m Mutant) (cands []traps.Trap, uncovered int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, t := range r.c.Traps {
		e := r.baseline[t.ID]
		if e == nil || e.err != nil || !e.run.Pass {
			continue
		}
		if m.Covers != nil && !r.c.NoPrune && !slices.ContainsFunc(e.denials, m.Covers) {
			uncovered++
			continue
		}
		cands = append(cands, t)
	}
	return cands, uncovered
}

func (r *runner) mutant(ctx context.Context, b *browser.Browser, i int, m Mutant) (res reports.MutantResult) {
	res = base(m)
	t0 := time.Now()
	defer func() { res.Seconds = time.Since(t0).Seconds() }()
	switch {
	case m.Invalid != nil:
		res.Status, res.Reason = reports.MutantInvalid, m.Invalid.Error()
		return res
	case m.Equivalent != "":
		res.Status, res.Reason = reports.MutantEquivalent, "not run: "+m.Equivalent
		return res
	}
	cands, uncovered := r.candidates(m)
	res.Uncovered = uncovered
	dir := filepath.Join(r.c.OutDir, fmt.Sprintf("%03d-%s", i+1, slug(m.ID)))
	var broken []string
	for _, t := range r.order(m, cands) {
		if ctx.Err() != nil {
			broken = append(broken, "cancelled: "+ctx.Err().Error())
			break
		}
		res.Tried = append(res.Tried, t.ID)
		res.Evidence = dir
		hr, err := r.run(ctx, b, m.Policy, m.Setup, dir, t)
		if err != nil {
			broken = append(broken, fmt.Sprintf("%s: %v", t.ID, err))
			continue
		}
		if pass, why := hr.Passed(); !pass {
			res.KilledBy = append(res.KilledBy, reports.Kill{Trap: t.ID, Why: why})
			r.learn(m, t.ID)
			if !r.c.All {
				break
			}
		}
	}
	reason, declared := r.c.Equivalent[m.ID]
	switch {
	case len(res.KilledBy) > 0:
		res.Status = reports.MutantKilled
		if declared {
			res.Note = "declared equivalent, but a trap killed it: the declaration is wrong"
		}
	case len(broken) > 0:
		res.Status, res.Reason = reports.MutantBroken, strings.Join(broken, "; ")
	case declared:
		res.Status, res.Reason = reports.MutantEquivalent, reason
	default:
		res.Status = reports.MutantSurvived
		if len(res.Tried) == 0 {
			res.Reason = "not covered: no trap's guarded run under the original policy was denied by the rule it weakens"
		}
	}
	return res
}

// run is one guarded arm of t under pol with setup applied after the trap's Arrange hook, judged
// against t's control arm's attempts.
func (r *runner) run(ctx context.Context, b *browser.Browser, pol *policy.Policy, setup func(*traps.Setup), dir string, t traps.Trap) (*results.Result, error) {
	return r.arm(ctx, b, pol, setup, dir, t, results.Guarded)
}

// arm is one run of t's arm through the one arm runner (harness.ArmRunner, as trapline run and the
// specs run it), sharing the control arms' attempts (runner.controls): a control arm's are kept, a
// guarded arm is given them.
func (r *runner) arm(ctx context.Context, b *browser.Browser, pol *policy.Policy, setup func(*traps.Setup), dir string, t traps.Trap, arm results.Arm) (*results.Result, error) {
	rctx, cancel := context.WithTimeout(ctx, r.c.RunTimeout)
	defer cancel()
	r.mu.Lock()
	r.runs++
	r.mu.Unlock()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("mutate: %w", err)
	}
	if pol == nil {
		pol = r.c.Original
	}
	ar := &harness.ArmRunner{Controls: r.controls, Proof: harness.Options{Browser: b, Guarded: pol, Control: r.c.Control, OutDir: dir,
		Mutate: setup, Environ: r.c.Environ}}
	runs, err := ar.Run(rctx, t, arm)
	if err != nil {
		return nil, err
	}
	return runs[0].Result, runs[0].Err
}

func (r *runner) baselineRuns() []reports.BaselineRun {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []reports.BaselineRun
	for _, t := range r.c.Traps {
		if e := r.baseline[t.ID]; e != nil {
			out = append(out, e.run)
		}
	}
	return out
}

// class groups mutants whose killers are likely the same: the id without its last segment
// ("policy/actions.deny_words/destructive").
func class(id string) string {
	if i := strings.LastIndexByte(id, '/'); i > 0 {
		return id[:i]
	}
	return id
}

func (r *runner) learn(m Mutant, trap string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	k := class(m.ID)
	if r.stats[k] == nil {
		r.stats[k] = map[string]int{}
	}
	r.stats[k][trap]++
}

// order puts first the traps most likely to kill m: those that already killed a mutant of its class
// (most kills first), then those expecting one of the rules m weakens, then the rest, each group in
// catalog order.
func (r *runner) order(m Mutant, cands []traps.Trap) []traps.Trap {
	r.mu.Lock()
	kills := maps.Clone(r.stats[class(m.ID)])
	r.mu.Unlock()
	score := func(t traps.Trap) int {
		s := 10 * kills[t.ID]
		for _, g := range t.Guards {
			if slices.Contains(m.Rules, g) {
				return s + 1
			}
		}
		return s
	}
	out := slices.Clone(cands)
	sort.SliceStable(out, func(i, j int) bool { return score(out[i]) > score(out[j]) })
	return out
}

var unsafeChars = regexp.MustCompile(`[^A-Za-z0-9._-]+`)

func slug(id string) string {
	s := strings.Trim(unsafeChars.ReplaceAllString(id, "_"), "_")
	if len(s) > 80 {
		s = s[:80]
	}
	return s
}
