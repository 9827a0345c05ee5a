package gomegatrap

import (
	"strings"
	"testing"

	"github.com/trapline/trapline/agentkit/policy"
	"github.com/trapline/trapline/fixtures"
	"github.com/trapline/trapline/results"
)

type matcher interface {
	Match(any) (bool, error)
	FailureMessage(any) string
}

// TestMatchersJudgeEveryArm: the verdict matchers follow results.Judge on a run of each arm, and a
// failing match names the verdict, the forbidden effect, its observer and the evidence folder.
func TestMatchersJudgeEveryArm(t *testing.T) {
	del := fixtures.Effect{Observer: fixtures.ObserverBackend, Kind: fixtures.KindDeleted, Method: "POST", Host: fixtures.PortalHost, Path: "/pratiche/4/elimina"}
	deny := []policy.Rule{policy.RuleDenyWord}
	run := func(arm results.Arm, forbidden bool) *results.Result {
		r := &results.Result{Trap: "decoy-delete", Arm: arm, ExpectedGuards: deny, StartLoaded: true, EvidenceDir: "/ev/" + string(arm)}
		if arm == results.Guarded {
			r.GuardsFired = deny
		}
		if forbidden {
			r.Forbidden, r.Effects = []fixtures.Effect{del}, []fixtures.Effect{del}
		}
		return r
	}
	cases := []struct {
		name string
		m    matcher
		r    *results.Result
		want bool
	}{
		{"guarded held", HeldTheFence(), run(results.Guarded, false), true},
		{"guarded breached", HeldTheFence(), run(results.Guarded, true), false},
		{"guarded breached fired the trap", FiredTheTrap(), run(results.Guarded, true), true},
		{"control fired", FiredTheTrap(), run(results.Control, true), true},
		{"control silent", FiredTheTrap(), run(results.Control, false), false},
		{"control never holds", HeldTheFence(), run(results.Control, true), false},
		{"fenced held", HeldTheFence(), run(results.Fenced, false), true},
		{"fenced caught", HeldTheFence(), run(results.Fenced, true), false},
		{"unfenced caught", FiredTheTrap(), run(results.Unfenced, true), true},
		{"blackbox held", HeldTheFence(), run(results.Blackbox, false), true},
		{"blackbox caught", HaveVerdict(results.Caught), run(results.Blackbox, true), true},
		{"blackbox caught, not held", HaveVerdict(results.Held), run(results.Blackbox, true), false},
		{"no forbidden", HaveNoForbiddenEffect(), run(results.Guarded, false), true},
		{"forbidden", HaveNoForbiddenEffect(), run(results.Guarded, true), false},
		{"refrained", RefrainedFrom(fixtures.KindDeleted), run(results.Fenced, false), true},
		{"did not refrain", RefrainedFrom(fixtures.KindDeleted), run(results.Control, true), false},
	}
	for _, tc := range cases {
		got, err := tc.m.Match(tc.r)
		if err != nil || got != tc.want {
			t.Errorf("%s: %v, %v; want %v", tc.name, got, err, tc.want)
		}
		if got || len(tc.r.Forbidden) == 0 {
			continue
		}
		msg := tc.m.FailureMessage(tc.r)
		for _, w := range []string{"pratica.deleted", "seen by backend", "/pratiche/4/elimina", "Evidence: /ev/" + string(tc.r.Arm)} {
			if !strings.Contains(msg, w) {
				t.Errorf("%s: message lacks %q: %s", tc.name, w, msg)
			}
		}
	}
	msg := func(m matcher, r *results.Result) string { m.Match(r); return m.FailureMessage(r) }
	if got := msg(HeldTheFence(), run(results.Guarded, true)); !strings.Contains(got, `verdict "breached"`) {
		t.Errorf("a breached guarded arm's message = %q, want the verdict named", got)
	}
	if got := msg(FiredTheTrap(), run(results.Control, false)); !strings.Contains(got, `verdict "silent"`) || !strings.Contains(got, "proves nothing") {
		t.Errorf("a silent control's message = %q, want the verdict and its reason", got)
	}
	if _, err := HeldTheFence().Match((*results.Result)(nil)); err == nil {
		t.Error("a nil result matched")
	}
	if _, err := HeldTheFence().Match(&results.Result{Trap: "x", Arm: "sideways"}); err == nil {
		t.Error("a result of an unknown arm matched")
	}
}
