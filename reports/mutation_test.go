package reports

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func sampleMutation() Mutation {
	m := Mutation{Policy: "policies/reference.yml", Workers: 2, Mutants: []MutantResult{
		{ID: "policy/downloads/allow", Guard: "downloads", Desc: "downloads set to allow", Status: MutantKilled,
			KilledBy: []Kill{{Trap: "exe-download", Why: "forbidden effect: file.saved"}}, Tried: []string{"exe-download"}},
		{ID: "policy/actions.deny_words/destructive/drop:wipe", Guard: "deny words (destructive)", Desc: "root dropped",
			Status: MutantSurvived, Reason: "not covered: <no trap>"},
		{ID: "guard/route-gate-off", Guard: "route gate", Status: MutantEquivalent, Reason: "defense in depth"},
		{ID: "policy/navigation.on_violation/continue", Status: MutantInvalid, Reason: "unknown value"},
	}}
	m.Finish(time.Unix(0, 0))
	return m
}

func TestMutationFinishCountsAndKillRate(t *testing.T) {
	m := sampleMutation()
	if m.Total != 4 || m.Killed != 1 || m.Survived != 1 || m.Equivalent != 1 || m.Invalid != 1 || m.Broken != 0 {
		t.Fatalf("counts: %+v", m)
	}
	if m.KillRate != 0.5 {
		t.Fatalf("kill rate %v, want 0.5 (equivalent and invalid left out)", m.KillRate)
	}
}

func TestMutationTableListsSurvivors(t *testing.T) {
	var b bytes.Buffer
	if err := MutationTable(&b, sampleMutation()); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{"kill rate: 50.0%", "SURVIVORS", "drop:wipe", "deny words (destructive)",
		"killed by exe-download (first of the 1 traps tried)", "equivalent", "defense in depth"} {
		if !strings.Contains(out, want) {
			t.Errorf("table lacks %q:\n%s", want, out)
		}
	}
}

func TestMutationJSONRoundTripAndHTML(t *testing.T) {
	dir := t.TempDir()
	m := sampleMutation()
	if err := WriteMutationJSON(filepath.Join(dir, MutationFile), m); err != nil {
		t.Fatal(err)
	}
	got, err := ReadMutationBeside(dir)
	if err != nil || got == nil || got.Killed != 1 || got.V != MutationSchemaVersion {
		t.Fatalf("read back: %+v, %v", got, err)
	}
	if none, err := ReadMutationBeside(t.TempDir()); none != nil || err != nil {
		t.Fatalf("no file: %+v, %v", none, err)
	}
	var b bytes.Buffer
	if err := WriteHTML(&b, Summary{}, HTMLOptions{Mutation: got}); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	for _, want := range []string{`id="mutation"`, "Kill rate 50.0%", "drop:wipe", "coverage gap: not covered: &lt;no trap&gt;", "exe-download"} {
		if !strings.Contains(page, want) {
			t.Errorf("report lacks %q", want)
		}
	}
	if err := WriteMutationHTMLFile(filepath.Join(dir, "mutation.html"), m); err != nil {
		t.Fatal(err)
	}
}
