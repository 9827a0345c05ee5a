package traps

import (
	"fmt"
	"strings"
	"testing"

	"github.com/trapline/trapline/agentkit/policy"
	"github.com/trapline/trapline/fixtures"
	"github.com/trapline/trapline/policies"
)

func TestCatalogIsValidAndUnique(t *testing.T) {
	seen := map[string]bool{}
	for _, tr := range Catalog() {
		if err := tr.Validate(); err != nil {
			t.Error(err)
		}
		if seen[tr.ID] {
			t.Errorf("duplicate trap id %s", tr.ID)
		}
		seen[tr.ID] = true
		if _, err := Lookup(tr.ID); err != nil {
			t.Error(err)
		}
	}
	if _, err := Lookup("no-such-trap"); err == nil {
		t.Error("Lookup of an unknown id must fail")
	}
}

func TestForbiddenMatches(t *testing.T) {
	f := Forbidden{Observer: fixtures.ObserverBackend, Kind: fixtures.KindSectionServed, Path: "^/admin"}
	cases := []struct {
		e    fixtures.Effect
		want bool
	}{
		{fixtures.Effect{Observer: "backend", Kind: fixtures.KindSectionServed, Path: "/admin/x"}, true},
		{fixtures.Effect{Observer: "backend", Kind: fixtures.KindSectionServed, Path: "/export"}, false},
		{fixtures.Effect{Observer: "canary", Kind: fixtures.KindSectionServed, Path: "/admin"}, false},
		{fixtures.Effect{Observer: "backend", Kind: fixtures.KindDeleted, Path: "/admin"}, false},
	}
	for _, c := range cases {
		if got := f.Matches(c.e); got != c.want {
			t.Errorf("Matches(%+v) = %v, want %v", c.e, got, c.want)
		}
	}
	anyCanary := Forbidden{Observer: fixtures.ObserverCanary}
	if !anyCanary.Matches(fixtures.Effect{Observer: "canary", Kind: fixtures.KindCanaryHit}) {
		t.Error("an empty kind must match any effect of the observer")
	}
}

func TestValidateRejectsIncompleteTraps(t *testing.T) {
	bad := []Trap{
		{ID: "Bad_ID", Category: Destructive, Incident: "x", Task: "y", StartPath: "/", Forbidden: []Forbidden{{Observer: "backend"}}, Guards: []policy.Rule{"deny_word"}},
		{ID: "no-forbidden", Category: Destructive, Incident: "x", Task: "y", StartPath: "/", Guards: []policy.Rule{"deny_word"}},
		{ID: "no-guard", Category: Destructive, Incident: "x", Task: "y", StartPath: "/", Forbidden: []Forbidden{{Observer: "backend"}}},
		{ID: "bad-observer", Category: Destructive, Incident: "x", Task: "y", StartPath: "/", Forbidden: []Forbidden{{Observer: "agent"}}, Guards: []policy.Rule{"deny_word"}},
		{ID: "bad-category", Category: "misc", Incident: "x", Task: "y", StartPath: "/", Forbidden: []Forbidden{{Observer: "backend"}}, Guards: []policy.Rule{"deny_word"}},
	}
	for _, tr := range bad {
		if err := tr.Validate(); err == nil {
			t.Errorf("Validate(%s) passed, want an error", tr.ID)
		}
	}
	// Each of these names the field it is about.
	ok := Trap{ID: "ok", Category: Destructive, Incident: "x", Task: "y", StartPath: "/", Forbidden: []Forbidden{{Observer: "backend"}}, Guards: []policy.Rule{policy.RuleDenyWord}}
	if err := ok.Validate(); err != nil {
		t.Fatalf("a complete trap: %v", err)
	}
	for _, c := range []struct {
		change func(*Trap)
		want   string
	}{
		{func(t *Trap) { t.Guards = []policy.Rule{policy.Rule(strings.ToLower(string(policy.RuleStaleRef)))} }, `guards[0]: rule "stale_ref" is not registered`},
		{func(t *Trap) { t.Incident = "" }, "incident is required"},
		{func(t *Trap) { t.Task = " " }, "task is required"},
		{func(t *Trap) { t.Incident = "TODO" }, `incident "TODO" is the scaffold's placeholder`},
		{func(t *Trap) { t.Task = "TODO: what the agent is asked to do" }, "task \"TODO: what the agent is asked to do\" is the scaffold's placeholder"},
	} {
		tr := ok
		c.change(&tr)
		if err := tr.Validate(); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Validate = %v, want %q", err, c.want)
		}
	}
}

// The staging data must not trip the reference deny list by accident: a pratica whose title holds a
// deny word would make the task impossible and hide real denials in noise.
func TestSeedDataAvoidsReferenceDenyWords(t *testing.T) {
	ref := mustPolicy(t, policies.Reference)
	st := fixtures.NewState(fixtures.DefaultPratiche, nil)
	for _, p := range st.Pratiche() {
		name := fmt.Sprintf("Pratica %d: %s", p.ID, p.Titolo)
		if cat, root, ok := ref.Actions.MatchDenyWord(name); ok {
			t.Errorf("%q matches deny word %q (%s)", name, root, cat)
		}
	}
}
