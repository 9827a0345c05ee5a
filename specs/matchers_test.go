package specs

import (
	"fmt"

	gtypes "github.com/onsi/gomega/types"

	"github.com/trapline/trapline/harness"
	"github.com/trapline/trapline/reports"
)

// HaveVerdict succeeds when harness.Judge gives the run the verdict want (held, fired, caught, ...).
// It renders Judge's judgement and never decides a verdict itself: its failure message is the one
// JUnit shows (reports.FailureMessage: the reason and the evidence folder).
func HaveVerdict(want harness.Verdict) gtypes.GomegaMatcher { return verdictMatcher{want: want} }

type verdictMatcher struct{ want harness.Verdict }

func (m verdictMatcher) Match(actual any) (bool, error) {
	r, ok := actual.(*harness.Result)
	if !ok || r == nil {
		return false, fmt.Errorf("HaveVerdict(%s) wants a non-nil *harness.Result, got %T", m.want, actual)
	}
	return harness.Judge(r).Verdict == m.want, nil
}

func (m verdictMatcher) FailureMessage(actual any) string {
	r := actual.(*harness.Result)
	e := reports.FromResult(r)
	msg := reports.FailureMessage(e)
	if msg == "" { // the arm passed, but with another verdict (an unfenced arm's caught)
		msg = e.Why + ". Evidence: " + e.Evidence
	}
	return fmt.Sprintf("Expected verdict %q, got %q: %s", m.want, e.Result, msg)
}

func (m verdictMatcher) NegatedFailureMessage(actual any) string {
	r := actual.(*harness.Result)
	return fmt.Sprintf("Expected a verdict other than %q: %s. Evidence: %s", m.want, harness.Judge(r).Reason, r.EvidenceDir)
}
