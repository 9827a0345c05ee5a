package main

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/trapline/trapline/reports"
)

// The mutate command's arguments and listing (no browser: --list and bad input stop before a run).
func TestMutateCommand(t *testing.T) {
	dir := t.TempDir()
	stale := writeFile(t, filepath.Join(dir, "eq.yml"), `"policy/nope": "because"`+"\n")
	noReason := writeFile(t, filepath.Join(dir, "noreason.yml"), `"guard/route-gate-off": ""`+"\n")
	ref := filepath.Join("..", "..", "policies", "reference.yml")
	res := reports.Mutation{Mutants: []reports.MutantResult{{ID: "guard/x", Guard: "g", Status: reports.MutantSurvived}}}
	res.Finish(time.Unix(0, 0))
	result := filepath.Join(dir, "mutation.json")
	if err := reports.WriteMutationJSON(result, res); err != nil {
		t.Fatal(err)
	}
	cases := []cliCase{
		{[]string{"mutate", "--policy", ref, "--list"}, exitOK, []string{"policy/actions.deny_words/destructive/drop:elimin"}},
		{[]string{"mutate", "--policy", ref, "--list"}, exitOK, []string{"guard/text-normalisation-off"}},
		{[]string{"mutate", "--policy", ref, "--list", "--smoke"}, exitOK, []string{"3 mutants"}},
		{[]string{"mutate", "--policy", ref, "--list", "--only", "policy/budget", "--limit", "2"}, exitOK, []string{"2 mutants"}},
		{[]string{"mutate", "--policy", ref, "--list", "--equivalent", filepath.Join("..", "..", "policies", "mutants", "reference.yml")}, exitOK, []string{"[declared equivalent]"}},
		{[]string{"mutate", "--policy", ref, "--list", "--equivalent", stale}, exitUsage, []string{"stale declaration"}},
		{[]string{"mutate", "--policy", ref, "--list", "--equivalent", noReason}, exitUsage, []string{"needs its reason"}},
		{[]string{"mutate", "--policy", ref, "--only", "nothing/"}, exitUsage, []string{"no mutant id starts with"}},
		{[]string{"mutate", "--policy", ref, "--traps", "no-such-trap"}, exitUsage, []string{"no-such-trap"}},
		{[]string{"mutate", "--policy", filepath.Join(dir, "missing.yml")}, exitUsage, []string{"missing.yml"}},
		{[]string{"mutate", "extra"}, exitUsage, []string{"unexpected arguments"}},
		{[]string{"mutate", "--render", result}, exitVerdict, []string{"SURVIVORS"}},
		{[]string{"mutate", "--render", filepath.Join(dir, "none.json")}, exitUsage, []string{"none.json"}},
	}
	checkCLI(t, cases)
}
