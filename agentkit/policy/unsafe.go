package policy

import (
	"strconv"
	"strings"
)

// Guard names one guard of the fence that a control arm or a mutation run may switch off, to prove
// that a trap fires, or that the catalog notices, when it is gone. The set is closed: Guards lists it.
type Guard uint8

// The guards, from the planner outwards.
const (
	// GuardTextNormalization: deny words match NormalizeText of the name. Off, they match the name
	// lower-cased and split at spaces only: no compatibility folding, format characters kept,
	// look-alikes not folded.
	GuardTextNormalization Guard = iota + 1
	// GuardUnnamedRule: actions on elements with no accessible name follow actions.unnamed. Off, they
	// are let through.
	GuardUnnamedRule
	// GuardStaleRef: a target is re-resolved on a fresh snapshot (same ref, role and name, and no
	// other element with that role and name; for a name the policy reads as none, each instance of a
	// repeated control is its own target while its record is unchanged) before dispatch. Off, the
	// ref is trusted.
	GuardStaleRef
	// GuardBlindRetry: an action whose delivery is unverified is not dispatched again on the unchanged
	// page. Off, it is.
	GuardBlindRetry
	// GuardCredentialPrompt: a page that asks for a password or a one-time code, or to prove a human is
	// there (a CAPTCHA), ends the run Inconclusive. Off, the run goes on.
	GuardCredentialPrompt
	// GuardRouteGate: the browser-side request gate. Off, the proxy is the only network guard.
	GuardRouteGate
	// GuardProxyRules: the egress proxy applies the policy. Off, it lets every world host through (it
	// still dials only the world's own listeners); the route gate is the only network guard.
	GuardProxyRules
)

// networkRules are the rules the route gate and the proxy record.
var networkRules = []Rule{RuleHostNotAllowed, RuleDenyPath, RulePathNotAllowed, RuleWriteNotAllowed, RuleObserveMode, RuleSchemeNotAllowed}

// GuardInfo describes one guard: its name, where it sits, and the rules it records when it says no.
type GuardInfo struct {
	Guard   Guard
	Name    string // kebab-case, for logs and flags
	Layer   Layer
	Records []Rule
}

// guards is the table of every guard, in Guard order.
var guards = []GuardInfo{
	{GuardTextNormalization, "text-normalisation", LayerDecide, []Rule{RuleDenyWord}},
	{GuardUnnamedRule, "unnamed-rule", LayerDecide, []Rule{RuleUnnamedElement}},
	{GuardStaleRef, "stale-ref", LayerResolve, []Rule{RuleStaleRef, RuleAmbiguousTarget}},
	{GuardBlindRetry, "blind-retry", LayerLoop, []Rule{RuleBlindRetry}},
	{GuardCredentialPrompt, "credential-prompt", LayerLoop, []Rule{RuleCredentialPrompt, RuleOneTimeCode, RuleHumanCheck}},
	{GuardRouteGate, "route-gate", LayerRequest, networkRules},
	{GuardProxyRules, "proxy-rules", LayerProxy, networkRules},
}

// Guards returns every guard in a stable order.
func Guards() []Guard {
	out := make([]Guard, len(guards))
	for i, g := range guards {
		out[i] = g.Guard
	}
	return out
}

// Info returns the guard's table entry (a copy); the zero GuardInfo for a value outside the set.
func (g Guard) Info() GuardInfo {
	if g < 1 || int(g) > len(guards) {
		return GuardInfo{}
	}
	i := guards[g-1]
	i.Records = append([]Rule(nil), i.Records...)
	return i
}

// String returns the guard's name.
func (g Guard) String() string {
	if n := g.Info().Name; n != "" {
		return n
	}
	return "guard(" + strconv.Itoa(int(g)) + ")"
}

// GuardsOff is a set of guards switched off. The zero value switches none off: every guard is on. It is
// a value: With returns a new set. The harness passes one set down as it is, to the policy
// (WithGuardsOff), the loop (agentkit.Agent.Off), the browser session and the world's proxy.
type GuardsOff uint32

// Off returns the set of gs.
func Off(gs ...Guard) GuardsOff { return GuardsOff(0).With(gs...) }

// With returns s with gs switched off too.
func (s GuardsOff) With(gs ...Guard) GuardsOff {
	for _, g := range gs {
		s |= 1 << g
	}
	return s
}

// Has reports whether g is switched off.
func (s GuardsOff) Has(g Guard) bool { return s&(1<<g) != 0 }

// List returns the guards switched off, in Guards order.
func (s GuardsOff) List() []Guard {
	var out []Guard
	for _, g := range Guards() {
		if s.Has(g) {
			out = append(out, g)
		}
	}
	return out
}

// String lists the names of the guards switched off, "none" for the empty set.
func (s GuardsOff) String() string {
	if s == 0 {
		return "none"
	}
	var names []string
	for _, g := range s.List() {
		names = append(names, g.String())
	}
	return strings.Join(names, ",")
}

// WithGuardsOff returns a copy of p that switches off the guards of off applied inside Decide
// (GuardTextNormalization, GuardUnnamedRule); it keeps the whole set, so GuardsOff reports it. UNSAFE:
// for control arms and mutation runs only; a reference agent must never run with it. Nothing else may
// set it, and no policy file can: Parse never does, and the YAML schema has no field for it.
func (p *Policy) WithGuardsOff(off GuardsOff) *Policy {
	c := p.Clone()
	c.off = off
	return c
}

// GuardsOff reports which guards WithGuardsOff switched off in p (none for a loaded policy).
func (p *Policy) GuardsOff() GuardsOff { return p.off }

// lowerOnly is the naive "normalisation" of the TextNormalization mutant: lower case, runs of white
// space collapsed, nothing else.
func lowerOnly(s string) string { return strings.Join(strings.Fields(strings.ToLower(s)), " ") }
