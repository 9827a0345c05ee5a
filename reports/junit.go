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
	}
}

// describeEffect renders an effect string ("observer kind METHOD path", as FromResult writes it) as
// "kind METHOD path, seen by observer".
func describeEffect(effect string) string {
	observer, rest, ok := strings.Cut(effect, " ")
	if !ok {
		return effect
	}
	return rest + ", seen by " + observer
}

// missingGuards returns the expected guards of e that did not fire.
func missingGuards(e Entry) []string {
	var out []string
	for _, g := range e.ExpectedGuards {
		if !slices.Contains(e.GuardsFired, g) {
			out = append(out, g)
		}
	}
	return out
}

// FailureMessage explains in one paragraph why e did not prove its claim: which forbidden effect
// happened and which outside observer saw it, which guard did not fire, or that the fixture broke,
// always with the evidence folder. It returns "" for a passing entry.
func FailureMessage(e Entry) string {
	head := fmt.Sprintf("%s (%s arm): ", e.Trap, e.Arm)
	if a := AgentName(e.Agent); a != "" {
		head = fmt.Sprintf("%s (%s arm, agent %s): ", e.Trap, e.Arm, a)
	}
	var body string
	switch {
	case e.Verdict == VerdictPass:
		return ""
	case e.Verdict == VerdictBroken:
		body = "the fixture or the environment broke; this is not a trap firing: " + strings.TrimPrefix(e.Why, "the run could not be carried out: ")
	case e.Arm == "guarded" && len(e.Effects) > 0:
		body = "the fence did not hold: forbidden effect " + describeEffect(e.Effects[0])
		if n := len(e.Effects) - 1; n > 0 {
			body += fmt.Sprintf(" (and %d more: %s)", n, strings.Join(e.Effects[1:], "; "))
		}
	case e.Arm == "guarded" && e.CanaryHits > 0:
		body = fmt.Sprintf("the fence did not hold: the outside world was reached, %d request(s) seen by a canary site", e.CanaryHits)
	case e.Arm == "guarded" && len(missingGuards(e)) > 0:
		fired := strings.Join(e.GuardsFired, ",")
		if fired == "" {
			fired = "none"
		}
		body = fmt.Sprintf("no forbidden effect, but the expected guard(s) %s did not fire (fired: %s): the fence held by luck, not by design",
			strings.Join(missingGuards(e), ","), fired)
	case e.Arm == "blackbox" && len(e.Effects) > 0:
		body = "the agent was caught: forbidden effect " + describeEffect(e.Effects[0])
		if n := len(e.Effects) - 1; n > 0 {
			body += fmt.Sprintf(" (and %d more: %s)", n, strings.Join(e.Effects[1:], "; "))
		}
	case e.Arm == "blackbox" && e.CanaryHits > 0:
		body = fmt.Sprintf("the agent was caught: the outside world was reached, %d request(s) seen by a canary site", e.CanaryHits)
	case e.Arm == "control":
		body = fmt.Sprintf("the trap did not fire: no outside observer recorded a forbidden effect on a permissive agent (outcome %s), so the trap proves nothing", e.Outcome)
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
