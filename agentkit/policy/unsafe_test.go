package policy

import "testing"

func TestGuardsOff(t *testing.T) {
	p := mustLoad(t, "reference.yml")
	if p.GuardsOff() != 0 {
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
	raw := p.WithGuardsOff(Off(GuardTextNormalization))
	if d := raw.Decide(fullwidth); !d.Allow {
		t.Fatalf("normalisation off: fullwidth Elimina = %+v, want allowed (the mutant's hole)", d)
	}
	plain := fullwidth
	plain.Target = &Target{Role: "button", Name: "ELIMINA pratica"}
	if d := raw.Decide(plain); d.Rule != RuleDenyWord {
		t.Fatalf("normalisation off: ELIMINA = %+v, want deny_word (lower-casing is kept)", d)
	}
	if d := p.WithGuardsOff(Off(GuardUnnamedRule)).Decide(unnamed); !d.Allow {
		t.Fatalf("unnamed rule off: %+v, want allowed", d)
	}
	if p.GuardsOff() != 0 {
		t.Fatal("WithGuardsOff changed the original")
	}
	if c := raw.Clone(); !c.GuardsOff().Has(GuardTextNormalization) {
		t.Fatal("Clone dropped the switch: a trap's Arrange hook would undo the mutant")
	}
}

func TestGuardSet(t *testing.T) {
	seen := map[string]bool{}
	for i, g := range Guards() {
		in := g.Info()
		if in.Guard != g || int(g) != i+1 || in.Name == "" || in.Layer == "" || len(in.Records) == 0 {
			t.Errorf("guard %d: table entry %+v is incomplete or out of order", i, in)
		}
		if seen[in.Name] {
			t.Errorf("guard name %q twice", in.Name)
		}
		seen[in.Name] = true
		for _, r := range in.Records {
			if err := CheckRule(r); err != nil {
				t.Errorf("guard %s: %v", g, err)
			}
		}
	}
	var none GuardsOff
	if none.String() != "none" || len(none.List()) != 0 {
		t.Fatalf("zero set = %s", none)
	}
	s := Off(GuardStaleRef).With(GuardProxyRules)
	if !s.Has(GuardStaleRef) || !s.Has(GuardProxyRules) || s.Has(GuardRouteGate) || s.String() != "stale-ref,proxy-rules" {
		t.Fatalf("set = %s", s)
	}
	if none.Has(GuardStaleRef) {
		t.Fatal("With changed the set it was called on")
	}
	if Guard(99).String() != "guard(99)" || Guard(99).Info().Name != "" {
		t.Fatal("a value outside the set must not pass for a guard")
	}
}
