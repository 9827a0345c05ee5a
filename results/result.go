// Package results is what one run of a trap produced, as the outside observers saw it (Result, the
// run's result.json), and its verdict (Judge, pure). It needs no browser: reports, gates and
// matchers read results without starting one. Package harness produces them.
package results

import (
	"fmt"
	"path/filepath"
	"slices"
	"time"

	"github.com/trapline/trapline/agentkit"
	"github.com/trapline/trapline/agentkit/evidence"
	"github.com/trapline/trapline/agentkit/policy"
	"github.com/trapline/trapline/fixtures"
)

// ResultFile is written into each run's evidence folder.
const ResultFile = "result.json"

// Files an agent under test's Command writes into its artifacts folder (harness.Command).
const (
	StdoutFile = "stdout.log"
	StderrFile = "stderr.log"
	// KilledFile lists, one "NAME (pid N)" a line, the processes an agent under test left running
	// that trapline killed at its run's end (every process the agent started, in any process group
	// or session); absent when there were none.
	KilledFile = "killed.txt"
)

// EvidencePath is the evidence folder of one run below root: root/<trap>/<arm> for the reference
// agent (agent "" or "reference"), root/<trap>/<arm>-<agent> for an agent under test.
func EvidencePath(root, trap string, arm Arm, agent string) string {
	if agent == "" || agent == ReferenceAgent {
		return filepath.Join(root, trap, string(arm))
	}
	return filepath.Join(root, trap, string(arm)+"-"+agent)
}

// ReferenceAgent is the name reports give the reference agent (agentkit), the agent of the guarded
// and control arms.
const ReferenceAgent = "reference"

// Result is what one run produced, as the outside observers saw it.
type Result struct {
	// V is the record's version (Version); WriteFile sets it and ReadFile checks it.
	V              int                  `json:"v"`
	Trap           string               `json:"trap"`
	Category       string               `json:"category"`
	Arm            Arm                  `json:"arm"`
	Outcome        agentkit.Outcome     `json:"outcome"`
	Reason         string               `json:"reason"`
	Forbidden      []fixtures.Effect    `json:"forbidden"`
	Effects        []fixtures.Effect    `json:"effects"`
	Violations     []evidence.Violation `json:"violations"`
	GuardsFired    []policy.Rule        `json:"guards_fired"`
	ExpectedGuards []policy.Rule        `json:"expected_guards"`
	ProxyDenied    int                  `json:"proxy_denied"`
	ProxyAllowed   int                  `json:"proxy_allowed"`
	EvidenceDir    string               `json:"evidence_dir"`
	Duration       time.Duration        `json:"duration_ns"`
	// StartLoaded says the proxy let a request for the trap's start page through: the agent met the
	// trap. A black-box run without it tested nothing.
	StartLoaded bool `json:"start_loaded"`
	// Agent names the agent under test in a black-box run; "" is the reference agent.
	Agent string `json:"agent,omitempty"`
	// AgentExit is how a black-box agent's run ended in its own words ("exit 0", "exit 1", "timeout
	// after 2m0s", ...). Information only: it proves nothing about the verdict.
	AgentExit string `json:"agent_exit,omitempty"`
	// Killed names the processes the agent under test left running that trapline killed when its run
	// ended ("chromium (pid 1234)"), from KilledFile: a clean agent ends what it starts.
	Killed []string `json:"killed,omitempty"`
	// ProxyGuards are the rules by which the proxy denied a request for one of the world's hosts.
	ProxyGuards []policy.Rule `json:"proxy_guards,omitempty"`
	// Answer is what the agent reported when it said done (the reference runtime's done reason); ""
	// when it reported nothing.
	Answer string `json:"answer,omitempty"`
	// Postcondition is what became of the task's postcondition when the reference agent's planner
	// said done (agentkit.Done): unmet says the planner's "done" was not true of the page. "" when the
	// planner never said done or the task has none.
	Postcondition agentkit.Postcondition `json:"postcondition,omitempty"`
	// TaskMeasured says the trap has a task success condition (traps.Success); TaskCompleted that
	// every part of it held after the run, checked from outside.
	TaskMeasured  bool `json:"task_measured"`
	TaskCompleted bool `json:"task_completed"`
	// Trial is the run's number among repeated trials (Options.Trial); 0 for a single run.
	Trial int `json:"trial,omitempty"`
	// ProxyStops are the proxy's denials of the world's hosts, with what each refused (method, host,
	// path): the same refusals as ProxyGuards.
	ProxyStops []Stop `json:"proxy_stops,omitempty"`
	// AgentStops are the refusals of a black-box agent's own fence as the agent reported them (an agent
	// tool that answered trapline's call with a refusal: harness.FenceReporter), each an attempt of
	// the agent; Judge weighs them beside the proxy's. Nil for every other run.
	AgentStops []Stop `json:"agent_stops,omitempty"`
	// FiredBy, in a permissive arm, are the attempts that produced its forbidden effects (recorded
	// from its action log); in any other arm, the control arm's, given in Options.FiredBy, to which
	// the verdict ties the fence's refusals (Judge).
	FiredBy []Attempt `json:"fired_by,omitempty"`
	// PlannerFailure says the run ended because the agent's planner could not act (its error, or its
	// proposals rejected three times in a row: agentkit.Result.PlannerFailure); "" otherwise. An
	// agent under test that could not act is broken (Judge), never held.
	PlannerFailure string `json:"planner_failure,omitempty"`
	// DeliveryTrouble lists the agent's allowed actions that did not reach the page because it was not
	// ready (a target re-rendered by a partial swap, a dispatch that failed): part of the agent's
	// outcome (agentkit.Result.DeliveryTrouble), never a guard in GuardsFired.
	DeliveryTrouble []evidence.Trouble `json:"delivery_trouble,omitempty"`
	// Causes tie each refusal that names no action (a dialog, download, upload, capability, popup or
	// route refusal) to the agent's action that led to it, or to none: the page's own (Cause). The
	// harness records them from the loop's action log; nil when there is none (a black-box agent).
	Causes []Cause `json:"causes,omitempty"`
	// Probes are the state probe's readings of the user's app, before and after the run, as numbers
	// (every arm, whether its rule held or not); nil when the trap has no probe.
	Probes []ProbeReading `json:"probes,omitempty"`
	// RunawayLimit is a budget trap's last step the fence's budget may let through (traps.Runaway),
	// derived from the arm's fence; 0 for other traps.
	RunawayLimit int `json:"runaway_limit,omitempty"`
	// RunawayNote says why RunawayLimit is the world's end rather than the fence's budget (a budget
	// unset, or past every step the trap's world serves); the verdict of a runaway quotes it.
	RunawayNote string `json:"runaway_note,omitempty"`
	// Decisions are the proposals the agent's planner made (agentkit.Result.Decisions); nil when the
	// harness cannot count them (a black-box agent, a page driver). An agent under test with 0
	// decided nothing: the run ended before it was asked (Judge: not exercised).
	Decisions *int `json:"decisions,omitempty"`
	// Tokens are the tokens the agent's planner reported spending (agentkit.Result.Tokens); nil when
	// its planner counts none (a scripted planner, a black-box agent). A token-budget trap measures
	// its runaway against this use (traps.Runaway.MeasuredLimit).
	Tokens *int `json:"tokens,omitempty"`
	// WorldsOwn are the forbidden effects and canary hits of an agent under test's run that no action
	// of the agent caused: they came before its first dispatched action (a beacon the page sends on
	// load, a frame that loads by itself). They are recorded and reported, never the agent's verdict:
	// the harness moves them out of Forbidden, and Judge counts no canary hit listed here.
	WorldsOwn []fixtures.Effect `json:"worlds_own,omitempty"`
	// UnmatchedForbidden, in a permissive (control) arm, are the trap's forbidden entries
	// (traps.Forbidden.String, then its desc) that matched none of the arm's effects: with a control
	// arm that fired on another entry, a pack mistake its author must see (a path naming a collection
	// by its name where the app sends its id). A warning, never the verdict; nil in other arms.
	UnmatchedForbidden []string `json:"unmatched_forbidden,omitempty"`
}

// CanaryHits counts the effects recorded by canary sites.
func (r *Result) CanaryHits() int {
	n := 0
	for _, e := range r.Effects {
		if e.Observer == fixtures.ObserverCanary {
			n++
		}
	}
	return n
}

// MissingGuards returns the expected guards that did not fire.
func (r *Result) MissingGuards() []policy.Rule {
	var out []policy.Rule
	for _, g := range r.ExpectedGuards {
		if !slices.Contains(r.GuardsFired, g) {
			out = append(out, g)
		}
	}
	return out
}

// Passed says whether the arm proved what it must, and why: Judge's Pass and Reason (the verdict word
// itself is Judge's Verdict).
func (r *Result) Passed() (pass bool, why string) {
	j := Judge(r)
	return j.Pass, j.Reason
}

// ProbeReading is one state probe's reading of the user's app around a run (traps.Probe): what it
// counted, where it read it, the count before and after, and whether the probe's rule was broken.
type ProbeReading struct {
	// Count is the JSON field whose list was counted ("" is the document itself).
	Count string `json:"count"`
	// Source is where the state was read: "GET URL" or "command PROG ARGS".
	Source string `json:"source"`
	// Before and After are the counts read before the run started and after its world closed.
	Before int `json:"before"`
	After  int `json:"after"`
	// MustNot is the probe's rule (decrease, increase, change); Broken says the run broke it.
	MustNot string `json:"must_not,omitempty"`
	Broken  bool   `json:"broken,omitempty"`
}

// Change is the reading's direction: "increased", "decreased" or "unchanged".
func (p ProbeReading) Change() string {
	switch {
	case p.After > p.Before:
		return "increased"
	case p.After < p.Before:
		return "decreased"
	}
	return "unchanged"
}

// String is the reading in words: "count(todos) 3 -> 2 (decreased; must not decrease: broken)".
func (p ProbeReading) String() string {
	s := fmt.Sprintf("count(%s) %d -> %d (%s", p.Count, p.Before, p.After, p.Change())
	if p.MustNot != "" {
		s += "; must not " + p.MustNot
		if p.Broken {
			s += ": broken"
		} else {
			s += ": held"
		}
	}
	return s + ")"
}
