package gomegatrap

import (
	"fmt"
	"slices"
	"strings"

	gtypes "github.com/onsi/gomega/types"

	"github.com/trapline/trapline/fixtures"
	"github.com/trapline/trapline/results"
)

// HeldTheFence succeeds when the run held, by results.Judge: on any arm but the control (guarded: no
// forbidden effect, no canary hit and the expected guard fired, tied to the control's attempt; an
// agent under test: nothing forbidden seen from outside on a run that met the trap). A control run
// never holds: its claim is FiredTheTrap's.
func HeldTheFence() gtypes.GomegaMatcher {
	return &resultMatcher{name: "HeldTheFence", want: "to hold the fence", check: verdictIn(results.Held)}
}

// FiredTheTrap succeeds when the trap fired in the run, by results.Judge: a control run proved the
// trap sensitive (fired), an agent under test was caught, or a guarded arm's fence was breached. A
// trap that cannot catch a naive agent proves nothing.
func FiredTheTrap() gtypes.GomegaMatcher {
	return &resultMatcher{name: "FiredTheTrap", want: "to fire the trap", check: verdictIn(results.Fired, results.Caught, results.Breached)}
}

// HaveVerdict succeeds when results.Judge gives the run the verdict want (held, breached, unguarded,
// fired, silent, caught, not exercised, broken), on a run of any arm.
func HaveVerdict(want results.Verdict) gtypes.GomegaMatcher {
	return &resultMatcher{name: "HaveVerdict", want: fmt.Sprintf("to have verdict %q", want), check: verdictIn(want)}
}

// HaveNoForbiddenEffect succeeds when no outside observer recorded an effect the trap forbids.
func HaveNoForbiddenEffect() gtypes.GomegaMatcher {
	return &resultMatcher{name: "HaveNoForbiddenEffect", want: "to show no forbidden effect", check: func(r *results.Result) (bool, string, error) {
		return len(r.Forbidden) == 0, "forbidden effect(s): " + Describe(r.Forbidden), nil
	}}
}

// RefrainedFrom succeeds when no outside observer recorded an effect of any of the given kinds (e.g.
// fixtures.KindDeleted, fixtures.KindCanaryHit), whether the trap forbids it or not.
func RefrainedFrom(kinds ...string) gtypes.GomegaMatcher {
	return &resultMatcher{name: "RefrainedFrom", want: "to refrain from " + strings.Join(kinds, ", "), check: func(r *results.Result) (bool, string, error) {
		if len(kinds) == 0 {
			return false, "", fmt.Errorf("RefrainedFrom: name at least one effect kind")
		}
		var seen []fixtures.Effect
		for _, e := range r.Effects {
			for _, k := range kinds {
				if e.Kind == k {
					seen = append(seen, e)
				}
			}
		}
		return len(seen) == 0, "recorded: " + Describe(seen), nil
	}}
}

// verdictIn checks that results.Judge's verdict is one of want; the message is the judgement's
// verdict and reason, and the forbidden effects seen.
func verdictIn(want ...results.Verdict) func(*results.Result) (bool, string, error) {
	return func(r *results.Result) (bool, string, error) {
		j := results.Judge(r)
		if j.Verdict == results.Invalid {
			return false, "", fmt.Errorf("%s: %s", r.Trap, j.Reason)
		}
		why := fmt.Sprintf("verdict %q: %s", j.Verdict, j.Reason)
		if len(r.Forbidden) > 0 {
			why += "; forbidden effect(s): " + Describe(r.Forbidden)
		}
		return slices.Contains(want, j.Verdict), why, nil
	}
}

// resultMatcher is one matcher on a *results.Result (harness.Run's, or one read back with
// results.ReadFile); check says whether it holds and why.
type resultMatcher struct {
	name, want string
	check      func(*results.Result) (bool, string, error)
	res        *results.Result
	why        string
}

// Match runs the check on actual, a *results.Result.
func (m *resultMatcher) Match(actual any) (bool, error) {
	r, ok := actual.(*results.Result)
	if !ok || r == nil {
		return false, fmt.Errorf("%s: want a non-nil *results.Result (did the run break? check its error), got %T", m.name, actual)
	}
	m.res = r
	pass, why, err := m.check(r)
	m.why = why
	return pass, err
}

// FailureMessage says what failed, with the evidence folder.
func (m *resultMatcher) FailureMessage(any) string {
	return fmt.Sprintf("Expected trap %s (%s arm) %s, but: %s\nEvidence: %s", m.res.Trap, m.res.Arm, m.want, m.why, m.res.EvidenceDir)
}

// NegatedFailureMessage says what unexpectedly held.
func (m *resultMatcher) NegatedFailureMessage(any) string {
	return fmt.Sprintf("Expected trap %s (%s arm) not %s, but it did: %s\nEvidence: %s", m.res.Trap, m.res.Arm, m.want, m.why, m.res.EvidenceDir)
}

// Describe renders effects for a failure message: each effect's kind, the observer that recorded it
// and the request that caused it.
func Describe(effects []fixtures.Effect) string {
	if len(effects) == 0 {
		return "none"
	}
	parts := make([]string, len(effects))
	for i, e := range effects {
		parts[i] = fmt.Sprintf("%s seen by %s (%s %s%s)", e.Kind, e.Observer, e.Method, e.Host, e.Path)
	}
	return strings.Join(parts, "; ")
}
