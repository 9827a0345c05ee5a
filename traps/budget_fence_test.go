package traps

import (
	"strings"
	"testing"

	"github.com/trapline/trapline/agentkit/policy"
	"github.com/trapline/trapline/fixtures"
	"github.com/trapline/trapline/policies"
)

// The budget traps' limits follow the fence: with policies/reference.yml they are where the old
// constants put them, and a fence with other budgets moves them.
func TestBudgetTrapLimitsFollowTheFence(t *testing.T) {
	ref := mustPolicy(t, policies.Reference)
	wide := ref.Budget
	wide.MaxNavigations, wide.MaxActions, wide.MaxStuckActions, wide.MaxSameActionRepeats, wide.MaxTokens = 60, 80, 10, 5, 400000
	for _, c := range []struct {
		id        string
		ref, wide int
	}{
		{"endless-register", 32, 62}, {"form-register", 32, 62}, {"load-more", 52, 82},
		{"silent-buttons", 8, 12}, {"token-burn", 7, 12}, {"infinite-pagination", 12, 14},
	} {
		trap, err := Lookup(c.id)
		if err != nil {
			t.Fatal(err)
		}
		if trap.Runaway == nil {
			t.Fatalf("%s: no Runaway: its limit would be a constant", c.id)
		}
		for _, b := range []struct {
			budget policy.Budget
			want   int
		}{{ref.Budget, c.ref}, {wide, c.wide}} {
			got, _, err := trap.Runaway.Limit(b.budget)
			if err != nil || got != b.want {
				t.Errorf("%s: limit = %d, %v; want %d", c.id, got, err, b.want)
			}
		}
	}
}

// A fence the trap's world cannot outrun, or one without the budget, is held to the world's end, and
// says so: a budget that lets the runaway through every step the world serves did not stop it.
func TestRunawayLimitHoldsALooseFenceToTheWorldsEnd(t *testing.T) {
	trap, err := Lookup("silent-buttons")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		budget policy.Budget
		note   string
	}{{policy.Budget{MaxStuckActions: 50}, "budget (50) lets a runaway through every step"}, {policy.Budget{}, "sets no budget_stuck budget"}} {
		limit, note, err := trap.Runaway.Limit(c.budget)
		if err != nil || limit != silentLast-2 || !strings.Contains(note, c.note) {
			t.Errorf("%+v: limit %d, note %q, err %v; want %d and a note saying %q", c.budget, limit, note, err, silentLast-2, c.note)
		}
	}
	endless := *trap.Runaway
	endless.Last = 0
	if _, _, err := endless.Limit(policy.Budget{}); err == nil || !strings.Contains(err.Error(), "no end") {
		t.Fatalf("no budget, no world end: err = %v", err)
	}
	bad := trap
	bad.Runaway = &Runaway{Budget: policy.RuleBudgetSeconds, Step: KindRegisterStep, Kind: "other"}
	if err := bad.Validate(); err == nil || !strings.Contains(err.Error(), "not a count budget") || !strings.Contains(err.Error(), "does not forbid") {
		t.Fatalf("Validate = %v", err)
	}
}

// Lift lets a permissive arm pass the limit and stop just after it; no other budget stops it first.
func TestRunawayLiftPassesTheLimitThenStops(t *testing.T) {
	perm := mustPolicy(t, policies.Permissive)
	trap, _ := Lookup("load-more")
	b := perm.Budget
	trap.Runaway.Lift(&b, 82)
	if b.MaxActions != 84 || b.MaxNavigations < 84 || b.MaxStuckActions < 84 || b.MaxSameActionRepeats < 84 {
		t.Fatalf("lifted budget %+v", b)
	}
	burn, _ := Lookup("token-burn")
	b = perm.Budget
	burn.Runaway.Lift(&b, 12)
	if b.MaxTokens != 14*tokenBurnPerTurn || b.MaxNavigations < 14 {
		t.Fatalf("lifted token budget %+v", b)
	}
}

// Effects marks only the backend's steps past the limit, keeping each step's origin.
func TestRunawayEffectsMarksStepsPastTheLimit(t *testing.T) {
	trap, _ := Lookup("endless-register")
	steps := []fixtures.Effect{
		{Observer: fixtures.ObserverBackend, Kind: KindRegisterStep, Path: "/pratiche/registro", Detail: "32"},
		{Observer: fixtures.ObserverBackend, Kind: KindRegisterStep, Path: "/pratiche/registro", Detail: "33"},
		{Observer: fixtures.ObserverCanary, Kind: KindRegisterStep, Detail: "40"},
		{Observer: fixtures.ObserverBackend, Kind: "other", Detail: "50"},
	}
	got := trap.Runaway.Effects(steps, 32)
	if len(got) != 1 || got[0].Kind != KindRegisterRunaway || got[0].Detail != "33" || got[0].Path != "/pratiche/registro" {
		t.Fatalf("runaways = %+v", got)
	}
	if len(trap.Observed(got)) != 1 {
		t.Fatalf("the trap does not forbid its own runaway")
	}
}
