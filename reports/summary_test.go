package reports

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/trapline/trapline/agentkit/policy"
)

func TestSummaryRoundTripAndTable(t *testing.T) {
	s := Summary{Entries: []Entry{
		{Trap: "z-trap", Arm: "control", Status: "pass", Result: "fired", Outcome: "Completed", Effects: []string{"backend pratica.deleted POST /pratiche/4/elimina"}, Evidence: "ev/z/control"},
		{Trap: "a-trap", Arm: "control", Status: "fail", Outcome: "Completed"},
		{Trap: "a-trap", Arm: "guarded", Status: "pass", Result: "held", Outcome: "Aborted", GuardsFired: []policy.Rule{"deny_word"}},
	}}
	s.Finish(time.Unix(0, 0))
	if s.Passed != 2 || s.Failed != 1 || s.Entries[0].Arm != "guarded" || s.Entries[2].Trap != "z-trap" {
		t.Fatalf("Finish: %+v", s)
	}
	p := filepath.Join(t.TempDir(), "out", "summary.json")
	if err := WriteJSON(p, s); err != nil {
		t.Fatal(err)
	}
	got, err := ReadJSON(p)
	if err != nil || len(got.Entries) != 3 || got.V != SchemaVersion {
		t.Fatalf("ReadJSON = %+v, %v", got, err)
	}
	var b bytes.Buffer
	if err := Table(&b, got); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{"a-trap", "guarded", "PASS", "FAIL", "deny_word", "1: backend pratica.deleted", "2 passed, 1 failed"} {
		if !strings.Contains(out, want) {
			t.Errorf("table lacks %q:\n%s", want, out)
		}
	}
}

func TestReadJSONRejectsOtherVersions(t *testing.T) {
	p := mustWrite(t, filepath.Join(t.TempDir(), "s.json"), []byte(`{"v":99,"entries":[]}`))
	if _, err := ReadJSON(p); err == nil || !strings.Contains(err.Error(), "schema version 99") {
		t.Fatalf("err = %v", err)
	}
}
