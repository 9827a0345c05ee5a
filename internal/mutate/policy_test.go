package mutate

import (
	"os"
	"strings"
	"testing"

	"github.com/trapline/trapline/agentkit/policy"
	"github.com/trapline/trapline/traps"
)

func referenceMutants(t *testing.T) (*policy.Policy, []Mutant) {
	t.Helper()
	data, err := os.ReadFile("../../policies/reference.yml")
	if err != nil {
		t.Fatal(err)
	}
	orig, err := policy.Parse("reference.yml", data)
	if err != nil {
		t.Fatal(err)
	}
	muts, err := PolicyMutants("reference.yml", data)
	if err != nil {
		t.Fatal(err)
	}
	return orig, muts
}

// Every policy mutant loads (or is invalid on purpose), changes the policy, and has a unique id.
func TestPolicyMutantsChangeThePolicy(t *testing.T) {
	orig, muts := referenceMutants(t)
	seen := map[string]bool{}
	for _, m := range muts {
		if seen[m.ID] {
			t.Errorf("duplicate id %s", m.ID)
		}
		seen[m.ID] = true
		if m.Kind != KindPolicy || m.Guard == "" || m.Desc == "" {
			t.Errorf("%s: incomplete: %+v", m.ID, m)
		}
		if m.ID == "policy/navigation.on_violation/continue" {
			if m.Invalid == nil {
				t.Errorf("%s: the loader accepted on_violation: continue", m.ID)
			}
			continue
		}
		if m.Invalid != nil {
			t.Errorf("%s: does not load: %v", m.ID, m.Invalid)
			continue
		}
		if m.Policy.Summary() == orig.Summary() {
			t.Errorf("%s: the mutated policy is the original", m.ID)
		}
	}
	if len(muts) < 90 {
		t.Fatalf("%d mutants, want every deny-word root, deny path, setting and budget of the reference policy", len(muts))
	}
}

// Each mutant changes what it says: a spot check per family, through Decide.
func TestPolicyMutantsWeakenTheirRule(t *testing.T) {
	orig, muts := referenceMutants(t)
	byID := map[string]*policy.Policy{}
	for _, m := range muts {
		byID[m.ID] = m.Policy
	}
	page := "http://portale.interno.test/pratiche/1"
	click := func(name string) policy.Input {
		return policy.Input{Kind: policy.KindClick, Target: &policy.Target{Role: "button", Name: name}, Page: page}
	}
	get := func(u string) policy.Request { return policy.Request{Method: "GET", URL: u, Navigation: true} }
	cases := []struct {
		id      string
		decide  func(*policy.Policy) policy.Decision
		origDen policy.Rule
	}{
		{"policy/actions.deny_words/destructive/drop:distrugg", func(p *policy.Policy) policy.Decision { return p.Decide(click("Distruggi fascicolo")) }, policy.RuleDenyWord},
		{"policy/actions.unnamed/allow", func(p *policy.Policy) policy.Decision { return p.Decide(click("")) }, policy.RuleUnnamedElement},
		{"policy/navigation.deny_paths/drop:/elimina", func(p *policy.Policy) policy.Decision {
			return p.DecideRequest(get("http://portale.interno.test/pratiche/7/elimina"))
		}, policy.RuleDenyPath},
		{"policy/navigation.allow/add-host:evil.example.test", func(p *policy.Policy) policy.Decision { return p.DecideRequest(get("http://evil.example.test/x")) }, policy.RuleHostNotAllowed},
		{"policy/navigation.allow/portale.interno.test/widen:^/$", func(p *policy.Policy) policy.Decision {
			return p.DecideRequest(get("http://portale.interno.test/archivio"))
		}, policy.RulePathNotAllowed},
		{"policy/actions.writes/POST ^/pratiche/[0-9]+/stato$/widen-method", func(p *policy.Policy) policy.Decision {
			return p.DecideRequest(policy.Request{Method: "PUT", URL: "http://portale.interno.test/pratiche/1/stato"})
		}, policy.RuleWriteNotAllowed},
	}
	for _, c := range cases {
		p := byID[c.id]
		if p == nil {
			t.Errorf("no mutant %s", c.id)
			continue
		}
		if d := c.decide(orig); d.Allow || d.Rule != c.origDen {
			t.Errorf("%s: the original decides %+v, want %s", c.id, d, c.origDen)
		}
		if d := c.decide(p); !d.Allow {
			t.Errorf("%s: the mutant still denies: %+v", c.id, d)
		}
	}
	if p := byID["policy/budget.max_actions/x100"]; p == nil || p.Budget.MaxActions != 100*orig.Budget.MaxActions {
		t.Errorf("budget mutant: %+v", p)
	}
	if p := byID["policy/downloads/allow"]; p == nil || p.Downloads != policy.Allow {
		t.Errorf("downloads mutant: %+v", p)
	}
}

func TestGuardMutants(t *testing.T) {
	orig, _ := referenceMutants(t)
	ms := GuardMutants(orig)
	if len(ms) != len(policy.Guards()) || len(guardMutants) != len(policy.Guards()) {
		t.Fatalf("%d guard mutants, %d described, %d guards: one each", len(ms), len(guardMutants), len(policy.Guards()))
	}
	for i, m := range ms {
		if !strings.HasPrefix(m.ID, "guard/") || m.Setup == nil || m.Policy != orig || len(m.Rules) == 0 {
			t.Errorf("%s: incomplete", m.ID)
		}
		var s traps.Setup
		m.Setup(&s)
		if g := policy.Guards()[i]; s.Off != policy.Off(g) {
			t.Errorf("%s switches off %s, want only %s", m.ID, s.Off, g)
		}
	}
}
