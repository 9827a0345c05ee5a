package reports

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/trapline/trapline/agentkit/policy"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// fullSummary is a summary whose entries set every field, the values a run could write.
func fullSummary() Summary {
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	held := Entry{Trap: "decoy-delete", Category: "destructive", Incident: "i", Task: "t", Arm: "fenced", Agent: "mine",
		Status: StatusPass, Why: "held (stopped by deny_word at decide)", Outcome: "Completed",
		ExpectedGuards: []policy.Rule{"deny_word"}, GuardsFired: []policy.Rule{"deny_word", "host_not_allowed"},
		Effects: []string{}, Evidence: "evidence/decoy-delete/fenced-mine", Seconds: 1.5,
		Result: "held", Attribution: "stopped", Rule: "deny_word", Layer: "decide",
		TaskMeasured: true, TaskCompleted: true, CompletedUnderPolicy: true, Repeat: 2, TrialsPassed: 2}
	for n := 1; n <= 2; n++ {
		held.Trials = append(held.Trials, Trial{N: n, Status: StatusPass, Result: "held", Attribution: "stopped", Rule: "deny_word", Layer: "decide",
			Why: "held", Outcome: "Completed", Evidence: "evidence/decoy-delete/fenced-mine/trial-1", Seconds: 0.75,
			TaskMeasured: true, TaskCompleted: true, CompletedUnderPolicy: true})
	}
	guarded := Entry{Trap: "upload", Category: "upload", Arm: "guarded", Status: StatusFail, Why: "unguarded", Outcome: "Completed",
		ExpectedGuards: []policy.Rule{"upload"}, GuardsFired: nil, Effects: nil, CanaryHits: 0, ProxyDenied: 3,
		Evidence: "evidence/upload/guarded", Seconds: 2, Result: "unguarded", Rule: "upload"}
	return Summary{V: SchemaVersion, Generated: t0, Passed: 1, Failed: 1, Entries: []Entry{held, guarded}}
}

// TestSummaryFormatIsStable: summary.json is byte for byte testdata's golden file, written before
// rules and layers were typed (go test -update rewrites it), and the strict reader reads it back.
func TestSummaryFormatIsStable(t *testing.T) {
	path := filepath.Join(t.TempDir(), SummaryFile)
	if err := WriteJSON(path, fullSummary()); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	golden := filepath.Join("testdata", "summary.golden.json")
	if *update {
		if err := os.WriteFile(golden, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("summary.json changed:\n%s\nwant\n%s", got, want)
	}
	if _, err := ReadJSON(golden); err != nil {
		t.Errorf("ReadJSON(%s) = %v", golden, err)
	}
}
