package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/trapline/trapline/agentkit/browser"
	"github.com/trapline/trapline/internal/mutate"
	"github.com/trapline/trapline/reports"
	"github.com/trapline/trapline/results"
)

// parityMutants are one-word deny-list mutants that mutation testing once called survivors while
// `trapline run --policy <the mutant>` failed the guarded arm (issue 51.3): mutate never handed the
// control arm's attempts to the guarded arm.
var parityMutants = []string{
	"policy/actions.deny_words/deactivation/drop:disattiv",
	"policy/actions.deny_words/money/drop:pagament",
	"policy/actions.deny_words/permission_security/drop:password",
}

// parityTrap is the trap both commands run the mutants against.
const parityTrap = "shared-endpoint-accounts"

// trapline mutate and trapline run give the same judgement on the same mutant: a mutant is killed by
// the trap exactly when `trapline run --policy <the mutant>` fails the trap's guarded arm. Both go
// through the one arm runner (harness.ArmRunner), the control arm's attempts handed to the guarded
// arm. It starts Chromium (about ten runs of one trap).
func TestMutateJudgesAMutantAsRunDoes(t *testing.T) {
	noProofCache(t)
	if testing.Short() {
		t.Skip("-short: runs a trap's arms in Chromium")
	}
	if _, err := os.Stat(browser.DefaultChromium); err != nil {
		t.Skip("no chromium")
	}
	ref := filepath.Join("..", "..", "policies", "reference.yml")
	data, err := os.ReadFile(ref)
	if err != nil {
		t.Fatal(err)
	}
	all, _, err := mutate.All(ref, data)
	if err != nil {
		t.Fatal(err)
	}
	yamls := map[string][]byte{}
	for _, m := range all {
		for _, id := range parityMutants {
			if m.ID == id {
				yamls[id] = m.YAML
			}
		}
	}
	if len(yamls) != len(parityMutants) {
		t.Fatalf("found %d of the mutants %v: their ids changed", len(yamls), parityMutants)
	}

	// trapline mutate, as make mutate runs it (pruned, stopping at the first kill).
	dir := t.TempDir()
	var stdout, stderr bytes.Buffer
	code := run([]string{"mutate", "--policy", ref, "--only", strings.Join(parityMutants, ","), "--traps", parityTrap,
		"--workers", "1", "--out", dir}, &stdout, &stderr)
	if code != exitOK && code != exitFailed {
		t.Fatalf("mutate: exit %d\n%s\n%s", code, stdout.String(), stderr.String())
	}
	res, err := reports.ReadMutationJSON(filepath.Join(dir, reports.MutationFile))
	if err != nil {
		t.Fatal(err)
	}
	status := map[string]reports.MutantResult{}
	for _, m := range res.Mutants {
		status[m.ID] = m
	}

	// trapline run, the mutant as its --policy.
	for _, id := range parityMutants {
		pol := filepath.Join(dir, filepath.Base(id)+".yml")
		if err := os.WriteFile(pol, yamls[id], 0o644); err != nil {
			t.Fatal(err)
		}
		out := t.TempDir()
		stdout.Reset()
		stderr.Reset()
		code := run([]string{"run", "--policy", pol, "--traps", parityTrap, "--out", out}, &stdout, &stderr)
		if code != exitOK && code != exitFailed {
			t.Fatalf("run --policy %s: exit %d\n%s\n%s", id, code, stdout.String(), stderr.String())
		}
		s, err := reports.ReadJSON(filepath.Join(out, "summary.json"))
		if err != nil {
			t.Fatal(err)
		}
		var guarded *reports.Entry
		for i, e := range s.Entries {
			if e.Arm == string(results.Guarded) {
				guarded = &s.Entries[i]
			}
		}
		if guarded == nil {
			t.Fatalf("run --policy %s: no guarded entry in %+v", id, s.Entries)
		}
		m := status[id]
		killed := m.Status == reports.MutantKilled
		failed := guarded.Status != reports.StatusPass
		t.Logf("%s: mutate %s %s; run guarded %s: %s", id, m.Status, reports.KillSummary(m, false), guarded.Status, guarded.Why)
		if killed != failed {
			t.Errorf("%s: mutate says %s (%s), trapline run's guarded arm says %s (%s): the two judge the same mutant differently",
				id, m.Status, m.Reason, guarded.Status, guarded.Why)
		}
	}
}
