package main

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/trapline/trapline/policies"
	"github.com/trapline/trapline/reports"
)

func TestCommands(t *testing.T) {
	dir := t.TempDir()
	bad := writeFile(t, filepath.Join(dir, "bad.yml"), "version: 1\nnavigation:\n  allow: []\n  bogus: 1\n")
	seed, err := os.ReadFile("../../agentkit/policy/testdata/seeds/browser-agent-policy.yml")
	if err != nil {
		t.Fatal(err)
	}
	typo := writeFile(t, filepath.Join(dir, "typo.yml"), strings.Replace(string(seed), "max_actions:", "max_actionz:", 1))
	failing := filepath.Join(dir, "summary.json")
	s := reports.Summary{Entries: []reports.Entry{{Trap: "decoy-delete", Arm: "guarded", Status: "fail", Why: "forbidden effect"}}}
	s.Finish(s.Generated)
	if err := reports.WriteJSON(failing, s); err != nil {
		t.Fatal(err)
	}
	cases := []cliCase{
		{[]string{"traps", "list"}, exitOK, []string{"decoy-delete"}},
		{[]string{"policy", "lint", "../../policies/reference.yml"}, exitOK, []string{"portale.interno.test"}},
		{[]string{"policy", "lint", bad}, exitUsage, []string{"bad.yml:4"}},
		// the seeds' example, unchanged: its summary, exit 0; a typo names line and field
		{[]string{"policy", "lint", "../../agentkit/policy/testdata/seeds/browser-agent-policy.yml"}, exitOK, []string{"budget: 60 actions, 30 navigations, 5m0s, 3 same-action repeats",
			"the seeds' format: no version, no actions.writes", "writes (from navigation.allow", "warning: no deny words"}},
		{[]string{"policy", "lint", typo}, exitUsage, []string{"typo.yml:24:3: budget.max_actionz: "}},
		{[]string{"report", failing}, exitFailed, []string{"FAIL"}},
		{[]string{"report", filepath.Join(dir, "missing.json")}, exitUsage, []string{"missing.json"}},
		{[]string{"frobnicate"}, exitUsage, []string{"usage"}},
		{nil, exitUsage, []string{"usage"}},
	}
	checkCLI(t, cases)
}

// TestSitesNamesTheMissingFlag: a serve/sites command line without a required flag says which.
func TestSitesNamesTheMissingFlag(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{nil, "missing --audit, --host, exactly one of --source and --world"},
		{[]string{"--world", "external-link", "--audit", "127.0.0.1:0"}, "missing --host"},
		{[]string{"--world", "external-link", "--audit", "127.0.0.1:0", "--host", "a=127.0.0.1:1", "extra"}, `unexpected arguments ["extra"]`},
		{[]string{"--bogus"}, "flag provided but not defined: -bogus"},
	} {
		err := runSites(context.Background(), c.args, io.Discard, nil)
		var ee *exitError
		if !errors.As(err, &ee) || ee.code != exitUsage || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "<nil>") {
			t.Errorf("sites %q: %v, want exit %d naming %q", c.args, err, exitUsage, c.want)
		}
	}
}

// TestBadPolicyIsTheUsers: a missing or bad --policy is the user's input (exitUsage, naming the
// flag); the defaults are embedded, so they load from any working directory.
func TestBadPolicyIsTheUsers(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "policies", "permissive.yml")
	var ee *exitError
	_, err := loadPolicy(missing, "--policy")
	if !errors.As(err, &ee) || ee.code != exitUsage || !strings.HasPrefix(err.Error(), "--policy: ") {
		t.Errorf("missing --policy: %v, want exit %d naming the flag", err, exitUsage)
	}
	for _, name := range []string{policies.Reference, "permissive", filepath.Join("..", "..", "policies", "permissive.yml")} {
		if _, err := loadPolicy(name, "--policy"); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
}
