package main

import (
	"io"
	"strings"
	"testing"

	"github.com/trapline/trapline/reports"
)

// TestProofMode: --fresh-proofs and TRAPLINE_PROOFS together; an unknown value is refused, never
// read as reuse.
func TestProofMode(t *testing.T) {
	for _, c := range []struct {
		env   string
		flag  bool
		want  string
		wrong bool
	}{
		{"", false, "reuse", false}, {"reuse", false, "reuse", false}, {"", true, "fresh", false},
		{"fresh", false, "fresh", false}, {"off", true, "off", false}, {"no", false, "", true},
	} {
		got, err := proofMode(c.flag, func(string) string { return c.env })
		if got != c.want || (err != nil) != c.wrong {
			t.Errorf("TRAPLINE_PROOFS=%q --fresh-proofs=%v: %q, %v", c.env, c.flag, got, err)
		}
	}
}

// TestARunAgainstTheUsersAppKeepsNoProof: every flag that puts the user's own app in the run leaves
// the run without a proof cache (the app is an input trapline cannot hash), and says so.
func TestARunAgainstTheUsersAppKeepsNoProof(t *testing.T) {
	t.Setenv(proofsEnv, "")
	t.Setenv(cacheEnv, t.TempDir())
	for flag, cfg := range map[string]runConfig{
		"--upstream":       {upstream: dirsFlag{"portale.example.test=http://127.0.0.1:1"}},
		"--upstream-image": {app: userAppFlags{image: "shop:1"}},
		"--probe-cmd":      {app: userAppFlags{probeCmd: "./probe"}},
		"--reset-cmd":      {app: userAppFlags{resetCmd: "./reset"}},
	} {
		var out strings.Builder
		k, err := proofKeeper(cfg, &reports.Provenance{}, "131", &out)
		if err != nil || k != nil || !strings.Contains(out.String(), flag) {
			t.Errorf("%s: keeper %v, %v, %q", flag, k, err, out.String())
		}
	}
	if k, err := proofKeeper(runConfig{}, &reports.Provenance{ControlPolicySHA256: "c", PlaywrightDriver: "d", World: "embedded"}, "131", io.Discard); err != nil || k == nil {
		t.Errorf("a run of trapline's own traps: keeper %v, %v", k, err)
	}
}

// noProofCache keeps a test's in-process trapline run from reading or writing the user's proof cache
// (TRAPLINE_PROOFS=off): every arm it judges is made by the tree under test.
func noProofCache(t *testing.T) {
	t.Helper()
	t.Setenv(proofsEnv, "off")
}
