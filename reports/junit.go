package reports

import (
	"fmt"
	"slices"
	"strings"
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
		{PropVerdict, e.Verdict},
		{PropExpectedGuard, strings.Join(e.ExpectedGuards, ",")},
		{PropGuardFired, strings.Join(e.GuardsFired, ",")},
		{PropEffects, strings.Join(e.Effects, "; ")},
		{PropEvidence, e.Evidence},
		{PropResult, ResultLabel(e)},
		{PropRepeat, repeatValue(e)},
		{PropPassRate, PassRate(e)},
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
	switch e.Verdict {
	case VerdictPass:
		return ""
	case VerdictBroken:
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
func missingGuards(e Entry) []string {
	var out []string
	for _, g := range e.ExpectedGuards {
		if !slices.Contains(e.GuardsFired, g) {
			out = append(out, g)
		}
	}
	return out
}
