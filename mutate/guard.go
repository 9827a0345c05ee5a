package mutate

import (
	"github.com/trapline/trapline/agentkit"
	"github.com/trapline/trapline/agentkit/policy"
	"github.com/trapline/trapline/traps"
)

// networkRules are the rules the route gate and the proxy record.
var networkRules = []policy.Rule{policy.RuleHostNotAllowed, policy.RuleDenyPath, policy.RulePathNotAllowed,
	policy.RuleWriteNotAllowed, policy.RuleObserveMode, policy.RuleSchemeNotAllowed}

// GuardMutants returns the guard mutants: the original policy pol with one of the reference agent's
// guards switched off through its test-only hook, in a stable order.
func GuardMutants(pol *policy.Policy) []Mutant {
	guard := func(id, name, desc string, rules []policy.Rule, setup func(*traps.Setup)) Mutant {
		m := Mutant{ID: "guard/" + id, Kind: KindGuard, Guard: name, Rules: rules, Desc: desc, Policy: pol, Setup: setup}
		if len(rules) == 1 && rules[0] != policy.RuleDenyWord {
			// One rule, recorded whenever the guard says no: a run where it never did is unchanged.
			m.Covers = ruleWith(rules[0], "")
		}
		return m
	}
	return []Mutant{
		guard("stale-ref-off", "snapshot-scoped refs (STALE_REF)",
			"a ref is dispatched without re-reading the page first (browser.SessionOptions.TrustRefs)",
			[]policy.Rule{policy.RuleStaleRef}, func(s *traps.Setup) { s.TrustRefs = true }),
		guard("text-normalisation-off", "deny-word text normalisation",
			"deny words match the name lower-cased only: no NFKC folding, format characters kept, look-alikes not folded (policy.UnsafeGuardsOff.TextNormalization)",
			[]policy.Rule{policy.RuleDenyWord}, func(s *traps.Setup) {
				off := s.Policy.UnsafeGuards()
				off.TextNormalization = true
				s.Policy = s.Policy.WithUnsafeGuardsOff(off)
			}),
		guard("unnamed-rule-off", "unnamed-element rule",
			"elements with no accessible name are acted on whatever actions.unnamed says (policy.UnsafeGuardsOff.UnnamedRule)",
			[]policy.Rule{policy.RuleUnnamedElement}, func(s *traps.Setup) {
				off := s.Policy.UnsafeGuards()
				off.UnnamedRule = true
				s.Policy = s.Policy.WithUnsafeGuardsOff(off)
			}),
		guard("unverified-as-not-delivered", "delivery classification (no blind retry)",
			"a DeliveredUnverified action is treated as NotDelivered: the same action is dispatched again on the unchanged page (agentkit.Unsafe.BlindRetry)",
			[]policy.Rule{policy.RuleBlindRetry}, func(s *traps.Setup) { s.AllowBlindRetry = true }),
		guard("credential-prompt-off", "credential prompts end the run",
			"the run goes on when a page asks for a password (agentkit.Unsafe.CredentialPrompts)",
			[]policy.Rule{agentkit.RuleCredentialPrompt}, func(s *traps.Setup) { s.AllowCredentialPrompts = true }),
		guard("route-gate-off", "browser-side route gate",
			"the browser-side request gate is off; the proxy is the only network guard",
			networkRules, func(s *traps.Setup) { s.NoRouteGate = true }),
		guard("proxy-off", "egress proxy rules",
			"the proxy lets every world host through; the route gate is the only network guard",
			networkRules, func(s *traps.Setup) { s.NoProxyRules = true }),
	}
}
