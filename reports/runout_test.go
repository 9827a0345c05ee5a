package reports

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/trapline/trapline/agentkit"
	"github.com/trapline/trapline/agentkit/policy"
	"github.com/trapline/trapline/results"
)

// TestInterruptedArmIsNotJudged: the guarded arm a signal cut off (its agent loop ended "cancelled",
// no guard had fired yet) is interrupted, not "unguarded: the fence held by luck"; a run whose error is
// the cancellation likewise.
func TestInterruptedArmIsNotJudged(t *testing.T) {
	r := Run{Trap: "confirm-dialog", Category: "dialog", Arm: "guarded", Evidence: "ev/confirm-dialog/guarded"}
	res := &results.Result{Trap: "confirm-dialog", Arm: results.Guarded, Outcome: agentkit.Inconclusive, Reason: "cancelled: context canceled",
		ExpectedGuards: []policy.Rule{"dialog"}, StartLoaded: true}
	if j := results.Judge(res); j.Verdict != results.Unguarded {
		t.Fatalf("control of the test: judged %s, want unguarded", j.Verdict)
	}
	for _, e := range []Entry{r.Entry(res, nil), r.Entry(nil, fmt.Errorf("harness: %w", context.Canceled))} {
		if e.Status != StatusInterrupted || strings.Contains(FailureMessage(e), "luck") || !strings.Contains(FailureMessage(e), "interrupted") {
			t.Errorf("entry %+v: %s", e, FailureMessage(e))
		}
	}
	if e := r.Entry(res, fmt.Errorf("world did not start")); e.Status != StatusBroken {
		t.Errorf("a broken run stays broken: %+v", e)
	}
}

// TestJUnitOfSummary: the JUnit document of a run has one case per entry, the counters its cases
// give, reads back through the gate's reader, and marks the reference arms as the summary's.
func TestJUnitOfSummary(t *testing.T) {
	s := Summary{Entries: []Entry{
		{Trap: "a", Arm: "guarded", Status: StatusPass, Result: "held"},
		{Trap: "a", Arm: "control", Status: StatusFail, Result: "silent", Why: "did not fire"},
		{Trap: "a", Arm: "fenced", Agent: "llm", Status: StatusBroken, Why: "the run could not be carried out: x"},
	}}
	s.Finish(s.Generated)
	p := filepath.Join(t.TempDir(), JUnitFile)
	if err := WriteJUnit(p, JUnitOf(s)); err != nil {
		t.Fatal(err)
	}
	j, err := ReadJUnit(p)
	if err != nil {
		t.Fatal(err)
	}
	if j.Tests != 3 || j.Failures != 1 || j.Errors != 1 || j.TestSuites[0].TestCases[2].Name != "[It] trapline run a fenced/llm" {
		t.Fatalf("junit: %+v", j)
	}
	outside, err := JUnitFailuresOutsideArms(p)
	if err != nil || len(outside) != 1 || !strings.Contains(outside[0], "fenced/llm") {
		t.Errorf("outside the reference arms: %v, %v", outside, err)
	}
}
