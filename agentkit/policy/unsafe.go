package policy

import "strings"

// UnsafeGuardsOff names guards inside Decide that a mutation run switches off, to prove that the trap
// catalog notices when they are gone. Nothing else may set them, and no policy file can: Parse never
// does, and the YAML schema has no field for them.
type UnsafeGuardsOff struct {
	// TextNormalization matches deny words on the name lower-cased and split at spaces only, without
	// NormalizeText: no compatibility folding, format characters kept, look-alikes not folded. UNSAFE.
	TextNormalization bool
	// UnnamedRule lets actions on elements with no accessible name through, whatever actions.unnamed
	// says. UNSAFE.
	UnnamedRule bool
}

// WithUnsafeGuardsOff returns a copy of p with the guards named in off switched off. UNSAFE: for
// mutation runs only (package mutate); a reference agent must never run with it.
func (p *Policy) WithUnsafeGuardsOff(off UnsafeGuardsOff) *Policy {
	c := p.Clone()
	c.unsafeOff = off
	return c
}

// UnsafeGuards reports which guards WithUnsafeGuardsOff switched off in p (none for a loaded policy).
func (p *Policy) UnsafeGuards() UnsafeGuardsOff { return p.unsafeOff }

// lowerOnly is the naive "normalisation" of the TextNormalization mutant: lower case, runs of white
// space collapsed, nothing else.
func lowerOnly(s string) string { return strings.Join(strings.Fields(strings.ToLower(s)), " ") }
