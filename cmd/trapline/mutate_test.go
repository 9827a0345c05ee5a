package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/trapline/trapline/reports"
)

// The mutate command's arguments and listing (no browser: --list and bad input stop before a run).
func TestMutateCommand(t *testing.T) {
	dir := t.TempDir()
	stale := filepath.Join(dir, "eq.yml")
	if err := os.WriteFile(stale, []byte(`"policy/nope": "because"`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	noReason := filepath.Join(dir, "noreason.yml")
	if err := os.WriteFile(noReason, []byte(`"guard/route-gate-off": ""`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	ref := filepath.Join("..", "..", "policies", "reference.yml")
	res := reports.Mutation{Mutants: []reports.MutantResult{{ID: "guard/x", Guard: "g", Status: reports.MutantSurvived}}}
	res.Finish(time.Unix(0, 0))
	result := filepath.Join(dir, "mutation.json")
	if err := reports.WriteMutationJSON(result, res); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		args     []string
		code     int
		contains string
	}{
		{[]string{"mutate", "--policy", ref, "--list"}, exitOK, "policy/actions.deny_words/destructive/drop:elimin"},
		{[]string{"mutate", "--policy", ref, "--list"}, exitOK, "guard/text-normalisation-off"},
		{[]string{"mutate", "--policy", ref, "--list", "--smoke"}, exitOK, "3 mutants"},
		{[]string{"mutate", "--policy", ref, "--list", "--only", "policy/budget", "--limit", "2"}, exitOK, "2 mutants"},
		{[]string{"mutate", "--policy", ref, "--list", "--equivalent", filepath.Join("..", "..", "policies", "mutants", "reference.yml")}, exitOK, "[declared equivalent]"},
		{[]string{"mutate", "--policy", ref, "--list", "--equivalent", stale}, exitUsage, "stale declaration"},
		{[]string{"mutate", "--policy", ref, "--list", "--equivalent", noReason}, exitUsage, "needs its reason"},
		{[]string{"mutate", "--policy", ref, "--only", "nothing/"}, exitUsage, "no mutant id starts with"},
		{[]string{"mutate", "--policy", ref, "--traps", "no-such-trap"}, exitUsage, "no-such-trap"},
		{[]string{"mutate", "--policy", filepath.Join(dir, "missing.yml")}, exitUsage, "missing.yml"},
		{[]string{"mutate", "extra"}, exitUsage, "unexpected arguments"},
		{[]string{"mutate", "--render", result}, exitVerdict, "SURVIVORS"},
		{[]string{"mutate", "--render", filepath.Join(dir, "none.json")}, exitUsage, "none.json"},
	}
	for _, c := range cases {
		var out, errOut bytes.Buffer
		code := run(c.args, &out, &errOut)
		if code != c.code || !strings.Contains(out.String()+errOut.String(), c.contains) {
			t.Errorf("%v: exit %d (want %d), output lacks %q:\n%s%s", c.args, code, c.code, c.contains, out.String(), errOut.String())
		}
	}
}
