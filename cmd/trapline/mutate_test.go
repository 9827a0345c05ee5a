package main

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/trapline/trapline/internal/mutate"
	"github.com/trapline/trapline/reports"
	"github.com/trapline/trapline/traps"
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
		{[]string{"mutate", "--render", result}, exitFailed, []string{"SURVIVORS"}},
		{[]string{"mutate", "--render", filepath.Join(dir, "none.json")}, exitUsage, []string{"none.json"}},
	}
	checkCLI(t, cases)
}

// The committed mutation result (bench/mutation.json, the README's kill rate) is a proof about one
// policy, catalog and mutant list: when any of them changes, the proof is stale and this test says
// to run make mutate again.
func TestCommittedMutationResultIsCurrent(t *testing.T) {
	root := filepath.Join("..", "..")
	committed, err := reports.ReadMutationJSON(filepath.Join(root, "bench", "mutation.json"))
	if err != nil {
		t.Fatal(err)
	}
	want := currentMutationFingerprint(t, filepath.Join(root, "policies", "reference.yml"))
	if why := committed.Fingerprint.Mismatch(want); why != "" {
		t.Fatalf("bench/mutation.json is a stale proof: %s.\nRun `make mutate` (a long run: docs/mutation.md) and commit "+
			"reports/out/mutation.json as bench/mutation.json, then update the README's kill rate", why)
	}
	if committed.Policy != "policies/reference.yml" || committed.Total != want.Mutants || len(committed.Baseline) != len(want.Catalog) {
		t.Fatalf("bench/mutation.json: policy %q, %d mutants, %d baseline runs; want policies/reference.yml, %d, %d (the whole catalog, every mutant)",
			committed.Policy, committed.Total, len(committed.Baseline), want.Mutants, len(want.Catalog))
	}
}

// The fingerprint check notices each kind of change (so TestCommittedMutationResultIsCurrent can fail).
func TestMutationFingerprintNoticesChanges(t *testing.T) {
	ref := filepath.Join("..", "..", "policies", "reference.yml")
	want := currentMutationFingerprint(t, ref)
	same := want
	if why := (&same).Mismatch(want); why != "" {
		t.Fatalf("the same inputs mismatch: %s", why)
	}
	data, err := os.ReadFile(ref)
	if err != nil {
		t.Fatal(err)
	}
	muts, _, err := mutate.All(ref, data)
	if err != nil {
		t.Fatal(err)
	}
	changed := map[string]reports.MutationFingerprint{
		"the policy changed":  mutate.Fingerprint(append(slices.Clone(data), "\n# a comment\n"...), want.Catalog, muts),
		"the catalog changed": mutate.Fingerprint(data, want.Catalog[1:], muts),
		"the mutants changed": mutate.Fingerprint(data, want.Catalog, muts[1:]),
	}
	for what, fp := range changed {
		if why := (&fp).Mismatch(want); !strings.Contains(why, what) {
			t.Errorf("%s: Mismatch says %q", what, why)
		}
	}
	if why := (*reports.MutationFingerprint)(nil).Mismatch(want); !strings.Contains(why, "no fingerprint") {
		t.Errorf("no fingerprint: Mismatch says %q", why)
	}
}

// currentMutationFingerprint is the fingerprint make mutate would write now: the policy file, the
// whole catalog, every mutant.
func currentMutationFingerprint(t *testing.T, policyFile string) reports.MutationFingerprint {
	t.Helper()
	data, err := os.ReadFile(policyFile)
	if err != nil {
		t.Fatal(err)
	}
	muts, _, err := mutate.All("policies/reference.yml", data)
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, tr := range traps.Catalog() {
		ids = append(ids, tr.ID)
	}
	return mutate.Fingerprint(data, ids, muts)
}

// The README and docs/mutation.md quote the committed result's figure as bench/mutation.json has it
// (its one home): a new make mutate that changes the figure fails here until both are updated.
func TestTheDocsQuoteTheCommittedMutationResult(t *testing.T) {
	root := filepath.Join("..", "..")
	m, err := reports.ReadMutationJSON(filepath.Join(root, "bench", "mutation.json"))
	if err != nil {
		t.Fatal(err)
	}
	figure := fmt.Sprintf("**%.1f%% (%d of %d mutants killed; %d survived, %d equivalent, %d invalid, %d broken)**",
		100*m.KillRate, m.Killed, m.Killed+m.Survived, m.Survived, m.Equivalent, m.Invalid, m.Broken)
	scope := fmt.Sprintf("%d mutants of `policies/reference.yml` against the %d-trap catalog", m.Total, len(m.Baseline))
	for _, doc := range []string{"README.md", filepath.Join("docs", "mutation.md")} {
		data, err := os.ReadFile(filepath.Join(root, doc))
		if err != nil {
			t.Fatal(err)
		}
		text := strings.Join(strings.Fields(string(data)), " ")
		for _, want := range []string{figure, scope} {
			if !strings.Contains(text, want) {
				t.Errorf("%s does not quote bench/mutation.json: want %q", doc, want)
			}
		}
	}
}
