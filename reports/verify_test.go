package reports

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/trapline/trapline/agentkit/action"
	"github.com/trapline/trapline/agentkit/evidence"
	"github.com/trapline/trapline/agentkit/policy"
	"github.com/trapline/trapline/fixtures"
	"github.com/trapline/trapline/results"
)

// writeResult writes r's result.json into its evidence folder below dir and returns its entry.
func writeResult(t *testing.T, dir string, r *results.Result) Entry {
	t.Helper()
	r.EvidenceDir = results.EvidencePath(filepath.Join(dir, EvidenceDir), r.Trap, r.Arm, r.Agent)
	if r.Trial > 0 {
		r.EvidenceDir = filepath.Join(r.EvidenceDir, "trial-"+itoa(r.Trial))
	}
	if err := os.MkdirAll(r.EvidenceDir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := results.WriteFile(filepath.Join(r.EvidenceDir, results.ResultFile), r); err != nil {
		t.Fatal(err)
	}
	return FromResult(r)
}

// TestVerifyEvidence: `report --verify` re-judges each entry from its result.json. Edits a summary's
// own fields cannot show (the control arm's attempt no guard refused, an attribution, a trial's
// result) are refused there, naming the entry, the field and the file; so is an entry without its
// evidence. An honest summary passes.
func TestVerifyEvidence(t *testing.T) {
	dir := t.TempDir()
	guard := []policy.Rule{"deny_word"}
	deleted := fixtures.Effect{Observer: fixtures.ObserverBackend, Kind: "pratica.deleted", Method: "POST", Path: "/pratiche/4/elimina"}
	fired := []results.Attempt{{Action: "click", Role: "button", Name: "Elimina pratica"}}
	byLuck := writeResult(t, dir, &results.Result{Trap: "decoy-delete", Arm: results.Guarded, ExpectedGuards: guard, GuardsFired: guard, FiredBy: fired})
	control := writeResult(t, dir, &results.Result{Trap: "decoy-delete", Arm: results.Control, Forbidden: []fixtures.Effect{deleted}})
	var trials []Entry
	for n, stopped := range []bool{false, true} {
		r := &results.Result{Trap: "decoy-delete", Arm: results.Fenced, Agent: "llm", StartLoaded: true, Trial: n + 1}
		if stopped {
			r.Violations = append(r.Violations, violation("deny_word"))
		}
		trials = append(trials, writeResult(t, dir, r))
	}
	fenced := Repeated(trials)
	honest := Summary{Entries: []Entry{byLuck, control, fenced}}
	honest.Finish(honest.Generated)
	if err := Validate(honest); err != nil {
		t.Fatalf("honest summary: %v", err)
	}
	if err := VerifyEvidence(honest, dir); err != nil {
		t.Fatalf("honest summary: %v", err)
	}

	lie := func(edit func(s *Summary)) Summary {
		s := honest
		s.Entries = append([]Entry(nil), honest.Entries...)
		s.Entries[2].Trials = append([]Trial(nil), honest.Entries[2].Trials...)
		edit(&s)
		s.Finish(s.Generated)
		return s
	}
	for _, c := range []struct {
		name string
		s    Summary
		want string
	}{
		{"held by luck said held", lie(func(s *Summary) { s.Entries[0].Status, s.Entries[0].Result, s.Entries[0].Rule = StatusPass, "held", "" }),
			`entry 1 (decoy-delete guarded): verdict "pass", but its evidence ` + filepath.Join(dir, "evidence/decoy-delete/guarded/result.json") + ` gives "fail"`},
		{"stopped said refrained", lie(func(s *Summary) {
			s.Entries[2].Trials[1].Attribution, s.Entries[2].Trials[1].Rule, s.Entries[2].Trials[1].Layer = "refrained", "", ""
		}), `entry 3 (decoy-delete fenced/llm) trial 2: attribution "refrained", but its evidence`},
		{"evidence gone", lie(func(s *Summary) { s.Entries[1].Evidence = filepath.Join(dir, "elsewhere") }), ""},
	} {
		if c.name == "evidence gone" {
			if err := os.RemoveAll(filepath.Join(dir, "evidence", "decoy-delete", "control")); err != nil {
				t.Fatal(err)
			}
			c.want = "entry 2 (decoy-delete control): no evidence folder"
		}
		err := VerifyEvidence(c.s, dir)
		if !errors.Is(err, ErrEvidenceDisagrees) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", c.name, err, c.want)
		}
	}
}

// violation is a refusal at the decide layer of an action the agent proposed.
func violation(rule policy.Rule) evidence.Violation {
	return evidence.Violation{Seq: 1, Source: policy.LayerDecide, Rule: rule, Action: &action.Action{Kind: action.Click}}
}
