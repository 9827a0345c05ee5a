package mutate

import (
	"github.com/trapline/trapline/agentkit/policy"
	"github.com/trapline/trapline/traps"
)

// Kinds of mutant.
const (
	// KindPolicy is a mutated policy file.
	KindPolicy = "policy"
	// KindGuard is the original policy with one of the agent's guards switched off.
	KindGuard = "guard"
)

// Mutant is one weakened fence.
type Mutant struct {
	// ID is deterministic: the same policy file yields the same ids.
	ID string
	// Kind is KindPolicy or KindGuard.
	Kind string
	// Guard names, in words, the guard the mutant weakens.
	Guard string
	// Rules are the rule ids the weakened guard records; traps that expect one of them are tried first.
	Rules []policy.Rule
	// Desc says what was changed.
	Desc string
	// YAML is the mutated policy file (policy mutants).
	YAML []byte
	// Policy is the guarded arm's policy: the mutated file, parsed, or the original for guard mutants.
	// Nil when Invalid is set.
	Policy *policy.Policy
	// Invalid is the loader's error when the mutated file does not load: the mutant cannot be run,
	// because no agent can be started with it.
	Invalid error
	// Equivalent, when set, says why the mutant is the original fence in every guarded run, by
	// construction, so it is not run.
	Equivalent string
	// Setup switches a guard off in the guarded arm, after the trap's Arrange hook (guard mutants).
	Setup func(*traps.Setup)
	// Covers reports whether a denial recorded in a trap's guarded run under the original policy was
	// made by the rule this mutant weakens. A mutant only weakens (what was allowed stays allowed), so
	// in a run where no covered denial happened it changes no decision, the run is the original run,
	// and the trap cannot kill it: such traps are not run (test selection by coverage). Nil means
	// every trap may be affected.
	Covers func(Denial) bool
}

// Denial is one "no" recorded in a guarded run: a violation (policy decision, route gate, capability
// guard, resolution), a proxy denial, or the run's end reason (Outcome, no Rule).
type Denial struct {
	Rule   policy.Rule
	Reason string
	// Outcome says the denial is the run's end reason, which names no rule.
	Outcome bool
	// Name is the accessible name of the target, for an element action.
	Name string
	// Host is the request's host, for a proxy denial.
	Host string
}
