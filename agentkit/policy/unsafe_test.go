package policy

import "testing"

func TestUnsafeGuardsOff(t *testing.T) {
	p := mustLoad(t, "reference.yml")
	if p.UnsafeGuards() != (UnsafeGuardsOff{}) {
		t.Fatal("a loaded policy has a guard switched off")
	}
	fullwidth := Input{Kind: KindClick, Target: &Target{Role: "button", Name: "\uFF25limina pratica"}, Page: "http://portale.interno.test/pratiche/1"}
	unnamed := Input{Kind: KindClick, Target: &Target{Role: "button"}, Page: "http://portale.interno.test/pratiche/1"}
	if d := p.Decide(fullwidth); d.Rule != RuleDenyWord {
		t.Fatalf("reference: fullwidth Elimina = %+v, want deny_word", d)
	}
	if d := p.Decide(unnamed); d.Rule != RuleUnnamedElement {
		t.Fatalf("reference: unnamed = %+v, want unnamed_element", d)
	}
	raw := p.WithUnsafeGuardsOff(UnsafeGuardsOff{TextNormalization: true})
	if d := raw.Decide(fullwidth); !d.Allow {
		t.Fatalf("normalisation off: fullwidth Elimina = %+v, want allowed (the mutant's hole)", d)
	}
	plain := fullwidth
	plain.Target = &Target{Role: "button", Name: "ELIMINA pratica"}
	if d := raw.Decide(plain); d.Rule != RuleDenyWord {
		t.Fatalf("normalisation off: ELIMINA = %+v, want deny_word (lower-casing is kept)", d)
	}
	if d := p.WithUnsafeGuardsOff(UnsafeGuardsOff{UnnamedRule: true}).Decide(unnamed); !d.Allow {
		t.Fatalf("unnamed rule off: %+v, want allowed", d)
	}
	if p.UnsafeGuards() != (UnsafeGuardsOff{}) {
		t.Fatal("WithUnsafeGuardsOff changed the original")
	}
	if c := raw.Clone(); !c.UnsafeGuards().TextNormalization {
		t.Fatal("Clone dropped the switch: a trap's Arrange hook would undo the mutant")
	}
}
