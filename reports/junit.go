package reports

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/onsi/ginkgo/v2/reporters"
	"github.com/trapline/trapline/agentkit/policy"
)

// Property is one JUnit property of a trap × arm test case. Specs attach each as a Ginkgo report entry
// (AddReportEntry(p.Name, p.Value)); Ginkgo writes it into the test case's <properties> with the value
// JSON-encoded, so every trapline property value is a JSON string.
type Property struct {
	Name  string
	Value string
}

// Property names, in the order Properties returns them.
const (
	PropTrap          = "trap"
	PropCategory      = "category"
	PropArm           = "arm"
	PropAgent         = "agent"
	PropVerdict       = "verdict"
	PropExpectedGuard = "expected_guard"
	PropGuardFired    = "guard_fired"
	PropEffects       = "effects"
	PropEvidence      = "evidence"
	// PropResult is results.Judge's verdict in words ("held (refrained)", "caught", "fired", ...).
	PropResult = "result"
	// PropRepeat and PropPassRate are a repeated arm's trial count and its passed trials ("2/3"); ""
	// for a single run.
	PropRepeat   = "repeat"
	PropPassRate = "pass_rate"
)

// Properties returns the JUnit properties of e: trap id, category, arm, agent ("reference" for the
// reference agent), verdict, the expected guard(s)
// and the guard(s) that fired (comma-separated, "" when none), the forbidden effects observed
// ("; "-separated, "" when none) and the evidence folder.
func Properties(e Entry) []Property {
	return []Property{
		{PropTrap, e.Trap},
		{PropCategory, e.Category},
		{PropArm, e.Arm},
		{PropAgent, agentOrReference(e.Agent)},
		{PropVerdict, e.Status},
		{PropExpectedGuard, policy.JoinRules(e.ExpectedGuards, ",")},
		{PropGuardFired, policy.JoinRules(e.GuardsFired, ",")},
		{PropEffects, strings.Join(e.Effects, "; ")},
		{PropEvidence, e.Evidence},
		{PropResult, ResultLabel(e)},
		{PropRepeat, repeatValue(e)},
		{PropPassRate, passRate(e)},
	}
}

func repeatValue(e Entry) string {
	if e.Repeat <= 1 {
		return ""
	}
	return fmt.Sprint(e.Repeat)
}

// FailureMessage explains in one paragraph why e did not prove its claim: the reason results.Judge
// gave (which forbidden effect happened and which outside observer saw it, which guard did not fire),
// or that the fixture broke, always with the evidence folder. It renders the verdict, never decides
// it again. It returns "" for a passing entry.
func FailureMessage(e Entry) string {
	head := fmt.Sprintf("%s (%s arm): ", e.Trap, e.Arm)
	if a := AgentName(e.Agent); a != "" {
		head = fmt.Sprintf("%s (%s arm, agent %s): ", e.Trap, e.Arm, a)
	}
	var body string
	switch e.Status {
	case StatusPass:
		return ""
	case StatusInterrupted:
		body = "interrupted: a signal stopped the run before this arm ended; this says nothing about the trap: " + e.Why
	case StatusBroken:
		body = "the fixture or the environment broke; this is not a trap firing: " + strings.TrimPrefix(e.Why, "the run could not be carried out: ")
	default:
		body = e.Why
	}
	return head + body + ". Evidence: " + e.Evidence
}

func agentOrReference(agent string) string {
	if a := AgentName(agent); a != "" {
		return a
	}
	return "reference"
}

// missingGuards returns the expected guards of e that did not fire (information for the report's
// patterns; the verdict is results.Judge's).
func missingGuards(e Entry) []policy.Rule {
	var out []policy.Rule
	for _, g := range e.ExpectedGuards {
		if !slices.Contains(e.GuardsFired, g) {
			out = append(out, g)
		}
	}
	return out
}

// JUnitSuiteName is the test suite of the JUnit document `trapline run` writes (JUnitOf).
const JUnitSuiteName = "trapline run"

// JUnitOf renders a summary as the JUnit document `trapline run` writes beside it: one test case per
// entry, named "[It] trapline run TRAP ARM" (an agent under test's arm as ArmLabel), carrying the
// entry's Properties and the entry itself (EntryName) JSON-encoded as Ginkgo writes report entries, a
// failure (FailureMessage) for a failed arm and an error for a broken or interrupted one; the
// counters are counted from the cases. `report --merge` merges it like a shard's specs.
func JUnitOf(s Summary) reporters.JUnitTestSuites {
	suite := reporters.JUnitTestSuite{Name: JUnitSuiteName, Package: "trapline", Timestamp: s.Generated.UTC().Format("2006-01-02T15:04:05")}
	for _, e := range s.Entries {
		tc := reporters.JUnitTestCase{Name: "[It] trapline run " + e.Trap + " " + ArmLabel(e), Classname: JUnitSuiteName, Time: e.Seconds,
			Status: "passed", Properties: &reporters.JUnitProperties{}}
		for _, p := range Properties(e) {
			tc.Properties.Properties = append(tc.Properties.Properties, reporters.JUnitProperty{Name: p.Name, Value: jsonValue(p.Value)})
		}
		if b, err := json.Marshal(e); err == nil {
			tc.Properties.Properties = append(tc.Properties.Properties, reporters.JUnitProperty{Name: EntryName, Value: string(b)})
		}
		switch e.Status {
		case StatusPass:
		case StatusFail:
			tc.Status, tc.Failure = "failed", &reporters.JUnitFailure{Message: FailureMessage(e), Type: "failed", Description: e.Why}
			suite.Failures++
		case StatusInterrupted:
			tc.Status, tc.Error = "interrupted", &reporters.JUnitError{Message: FailureMessage(e), Type: "interrupted", Description: e.Why}
			suite.Errors++
		default:
			tc.Status, tc.Error = "failed", &reporters.JUnitError{Message: FailureMessage(e), Type: "broken", Description: e.Why}
			suite.Errors++
		}
		suite.Tests++
		suite.Time += e.Seconds
		suite.TestCases = append(suite.TestCases, tc)
	}
	return reporters.JUnitTestSuites{Tests: suite.Tests, Errors: suite.Errors, Failures: suite.Failures, Time: suite.Time,
		TestSuites: []reporters.JUnitTestSuite{suite}}
}

// jsonValue JSON-encodes a property value, as Ginkgo writes report entries' values.
func jsonValue(v string) string {
	b, _ := json.Marshal(v)
	return string(b)
}
