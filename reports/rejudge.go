package reports

import (
	"fmt"
	"strings"

	"github.com/trapline/trapline/fixtures"
	"github.com/trapline/trapline/results"
)

// A gate re-judges every entry of a summary with results.Judge, the one verdict, instead of trusting
// the verdict the entry states. An entry records the facts the verdict rests on that a reader can
// check (the arm, the forbidden effects, the canary hits, the expected and fired guards, the task's
// completion, an agent's refused attempts: never refrained with one), not all of them (whether the start page loaded, the planner's failure, the control
// arm's attempts, the world's own effects): those are taken as its stored result needs them, so the
// re-judgement disagrees only where the entry's own fields contradict its verdict (a pass guarded
// arm listing a forbidden effect, a pass control arm with none). `report --verify` re-judges from the
// evidence folder's result.json, which records them all (VerifyEvidence).

// unrecorded stands, in a rebuilt result, for a fact the entry does not record but its result says
// there was (a planner that failed, an attempt of the control arm that no guard refused).
const unrecorded = "recorded in the run's result.json, not in the summary"

// entryResult rebuilds from e the results.Result it was judged from, as far as its fields record it
// (see above). The effects' order and observers are the entry's; their sequence numbers are not kept.
func entryResult(e Entry) *results.Result {
	arm := results.Arm(e.Arm)
	r := &results.Result{Trap: e.Trap, Category: e.Category, Arm: arm, Agent: e.Agent, ExpectedGuards: e.ExpectedGuards,
		GuardsFired: e.GuardsFired, TaskMeasured: e.TaskMeasured, TaskCompleted: e.TaskCompleted, ProxyDenied: e.ProxyDenied,
		StartLoaded: e.Result != string(results.NotExercised)}
	for _, s := range e.Effects {
		r.Forbidden = append(r.Forbidden, parseEffect(s))
	}
	r.Effects = append(r.Effects, r.Forbidden...)
	var canaries []fixtures.Effect
	for i := range e.CanaryHits {
		canaries = append(canaries, fixtures.Effect{Seq: i + 1, Observer: fixtures.ObserverCanary, Kind: "hit"})
	}
	r.Effects = append(r.Effects, canaries...)
	stored := results.Verdict(e.Result)
	if arm.UnderTest() {
		for _, a := range e.RefusedAttempts { // each a refusal of the agent's attempt, by the entry's rule
			r.AgentStops = append(r.AgentStops, results.Stop{Rule: e.Rule, Layer: e.Layer, Attempt: true, Target: results.Attempt{Action: a}})
		}
		if stored != results.Caught {
			r.WorldsOwn = canaries // hits the verdict left out can only have been the world's own
		}
		if stored == results.Broken {
			r.PlannerFailure = unrecorded
		}
	}
	if arm == results.Guarded && stored == results.Unguarded && len(r.MissingGuards()) == 0 {
		// the control arm's attempt no guard refused, or that was never tried (Judgement.Untried)
		r.FiredBy = []results.Attempt{{Action: unrecorded}}
	}
	return r
}

// parseEffect reads back an entry's effect, "observer kind METHOD path" (FromResult).
func parseEffect(s string) fixtures.Effect {
	f := strings.Fields(s)
	var e fixtures.Effect
	if len(f) > 0 {
		e.Observer = fixtures.Observer(f[0])
	}
	if len(f) > 1 {
		e.Kind = f[1]
	}
	if len(f) > 2 {
		e.Method = f[2]
	}
	if len(f) > 3 {
		e.Path = strings.Join(f[3:], " ")
	}
	return e
}

// rejudge re-judges a judged entry (verdict pass or fail) of a summary of schema version v from its
// own fields and returns each disagreement with what it states, in words; nil when there is none. A
// pass entry of schema version 2 or later must carry its result (results.Judge's verdict); an entry
// without one (version 1, or a fail) is checked as far as its fields go: a pass they do not give is
// refused, a fail stands (fail closed).
func rejudge(e Entry, v int) []string {
	if e.Status != StatusPass && e.Status != StatusFail {
		return nil // broken or interrupted: not judged
	}
	if e.Result == "" && v >= 2 && e.Status == StatusPass {
		return []string{fmt.Sprintf("verdict pass with no result: a judged entry of schema version %d records results.Judge's verdict, and a pass without one cannot be re-judged", v)}
	}
	j := results.Judge(entryResult(e))
	want := StatusFail
	if j.Pass {
		want = StatusPass
	}
	var out []string
	switch {
	case e.Result == "":
		if e.Status == StatusPass && !j.Pass {
			out = append(out, fmt.Sprintf("verdict pass, but re-judged from its own fields it is %s (%s): %s", want, j.Verdict, j.Reason))
		}
		return out
	case string(j.Verdict) != e.Result:
		out = append(out, fmt.Sprintf("result %q, but re-judged from its own fields it is %q: %s", e.Result, j.Verdict, j.Reason))
	case e.Status != want:
		out = append(out, fmt.Sprintf("verdict %s, but its result %q %s the %s arm (re-judged: %s)", e.Status, e.Result, passWord(j.Pass), e.Arm, j.Reason))
	}
	if e.Repeat == 0 && v >= RefusedAttemptsVersion && e.Attribution == string(results.Refrained) && j.Attribution == results.Stopped {
		// The flattering lie only: a stopped entry that names no attempt claims less, not more.
		out = append(out, fmt.Sprintf("attribution %q, but its refused_attempts (%d) give %q: an agent refrained only when the fence refused none of its attempts",
			e.Attribution, len(e.RefusedAttempts), j.Attribution))
	}
	if e.Repeat == 0 && v >= 2 && e.CompletedUnderPolicy != j.CompletedUnderPolicy {
		out = append(out, fmt.Sprintf("completed_under_policy %v, but its task_completed %v and result %q give %v", e.CompletedUnderPolicy, e.TaskCompleted, e.Result, j.CompletedUnderPolicy))
	}
	return out
}

// trialsWithoutResult names the passing trials of a repeated entry that record no result, in a summary
// of schema version v 2 or later (which records one for every judged trial): a pass that cannot be
// re-judged.
func trialsWithoutResult(e Entry, v int) []string {
	var out []string
	for _, t := range e.Trials {
		if v >= 2 && t.Status == StatusPass && t.Result == "" {
			out = append(out, fmt.Sprintf("trial %d: verdict pass with no result", t.N))
		}
	}
	return out
}

func passWord(pass bool) string {
	if pass {
		return "passes"
	}
	return "fails"
}
