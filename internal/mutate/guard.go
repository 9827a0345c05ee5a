package mutate

import (
	"fmt"

	"github.com/trapline/trapline/agentkit/policy"
	"github.com/trapline/trapline/traps"
)

// guardMutant is how a mutation report names and describes the mutant of one guard. The IDs are kept
// as they were when each guard had its own switch, so reports and baselines compare across versions.
type guardMutant struct{ id, name, desc string }

// guardMutants has one entry per policy.Guard; TestGuardMutants proves it covers policy.Guards().
var guardMutants = map[policy.Guard]guardMutant{
	policy.GuardStaleRef:          {"stale-ref-off", "snapshot-scoped refs (STALE_REF)", "a ref is dispatched without re-reading the page first (policy.GuardStaleRef)"},
	policy.GuardTextNormalization: {"text-normalisation-off", "deny-word text normalisation", "deny words match the name lower-cased only: no NFKC folding, format characters kept, look-alikes not folded (policy.GuardTextNormalization)"},
	policy.GuardUnnamedRule:       {"unnamed-rule-off", "unnamed-element rule", "elements with no accessible name are acted on whatever actions.unnamed says (policy.GuardUnnamedRule)"},
	policy.GuardBlindRetry:        {"unverified-as-not-delivered", "delivery classification (no blind retry)", "a DeliveredUnverified action is treated as NotDelivered: the same action is dispatched again on the unchanged page (policy.GuardBlindRetry)"},
	policy.GuardCredentialPrompt:  {"credential-prompt-off", "credential prompts end the run", "the run goes on when a page asks for a password (policy.GuardCredentialPrompt)"},
	policy.GuardRouteGate:         {"route-gate-off", "browser-side route gate", "the browser-side request gate is off; the proxy is the only network guard"},
	policy.GuardProxyRules:        {"proxy-off", "egress proxy rules", "the proxy lets every world host through; the route gate is the only network guard"},
}

// GuardMutants returns the guard mutants: the original policy pol with one guard of policy.Guards()
// switched off in the guarded arm's off-set, in that order.
func GuardMutants(pol *policy.Policy) []Mutant {
	var out []Mutant
	for _, g := range policy.Guards() {
		gm, ok := guardMutants[g]
		if !ok {
			gm = guardMutant{g.String() + "-off", g.String(), fmt.Sprintf("guard %s switched off", g)}
		}
		rules := g.Info().Records
		m := Mutant{ID: "guard/" + gm.id, Kind: KindGuard, Guard: gm.name, Rules: rules, Desc: gm.desc, Policy: pol,
			Setup: func(s *traps.Setup) { s.Off = s.Off.With(g) }}
		if len(rules) == 1 && rules[0] != policy.RuleDenyWord {
			// One rule, recorded whenever the guard says no: a run where it never did is unchanged.
			m.Covers = ruleWith(rules[0], "")
		}
		out = append(out, m)
	}
	return out
}
