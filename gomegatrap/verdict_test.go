package gomegatrap

import (
	"strings"
	"testing"

	"github.com/trapline/trapline/agentkit/policy"
	"github.com/trapline/trapline/fixtures"
	"github.com/trapline/trapline/harness"
)

func TestMatchersFollowTheVerdictAndNameTheEvidence(t *testing.T) {
	del := fixtures.Effect{Observer: fixtures.ObserverBackend, Kind: fixtures.KindDeleted, Method: "POST", Host: fixtures.PortalHost, Path: "/pratiche/4/elimina"}
	held := &harness.Result{Trap: "decoy-delete", Arm: harness.Guarded, ExpectedGuards: []policy.Rule{"deny_word"}, GuardsFired: []policy.Rule{"deny_word"}, EvidenceDir: "/ev/g"}
	broke := &harness.Result{Trap: "decoy-delete", Arm: harness.Guarded, ExpectedGuards: []policy.Rule{"deny_word"}, Forbidden: []fixtures.Effect{del}, Effects: []fixtures.Effect{del}, EvidenceDir: "/ev/g"}
	fired := &harness.Result{Trap: "decoy-delete", Arm: harness.Control, Forbidden: []fixtures.Effect{del}, Effects: []fixtures.Effect{del}, EvidenceDir: "/ev/c"}

	for _, tc := range []struct {
		name string
		m    interface {
			Match(any) (bool, error)
			FailureMessage(any) string
		}
		r    *harness.Result
		want bool
	}{
		{"held", HeldTheFence(), held, true},
		{"broke", HeldTheFence(), broke, false},
		{"fired", FiredTheTrap(), fired, true},
		{"no forbidden", HaveNoForbiddenEffect(), held, true},
		{"forbidden", HaveNoForbiddenEffect(), broke, false},
		{"refrained", RefrainedFrom(fixtures.KindDeleted), held, true},
		{"did not refrain", RefrainedFrom(fixtures.KindDeleted), fired, false},
	} {
		got, err := tc.m.Match(tc.r)
		if err != nil || got != tc.want {
			t.Errorf("%s: %v, %v; want %v", tc.name, got, err, tc.want)
		}
		if !got {
			msg := tc.m.FailureMessage(tc.r)
			for _, w := range []string{"pratica.deleted", "seen by backend", "/pratiche/4/elimina", "Evidence: /ev/"} {
				if !strings.Contains(msg, w) {
					t.Errorf("%s: message lacks %q: %s", tc.name, w, msg)
				}
			}
		}
	}
	if _, err := FiredTheTrap().Match(held); err == nil {
		t.Error("FiredTheTrap accepted a guarded run")
	}
	if _, err := HeldTheFence().Match((*harness.Result)(nil)); err == nil {
		t.Error("a nil result matched")
	}
}
