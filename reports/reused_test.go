package reports

import (
	"bytes"
	"strings"
	"testing"
	"time"
)

// TestAReusedProofIsSaidEverywhere: the progress line, the table and the HTML report say which run
// made a reused proof, and when.
func TestAReusedProofIsSaidEverywhere(t *testing.T) {
	e := entry("decoy-delete", "control", StatusPass)
	e.Reused = &ReusedProof{Run: "/runs/first", Made: time.Date(2026, 12, 7, 9, 30, 0, 0, time.UTC), Key: "ab12", Seconds: 4.8}
	want := "reused proof, made 2026-12-07 09:30 UTC by /runs/first"
	if got := ProgressLine(e); !strings.Contains(got, want) {
		t.Errorf("progress line %q", got)
	}
	s := Summary{Entries: []Entry{e, entry("decoy-delete", "guarded", StatusPass)}}
	var table, html bytes.Buffer
	if err := Table(&table, s); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(table.String(), want) || !strings.Contains(table.String(), "1 proof arm(s) reused") {
		t.Errorf("table:\n%s", table.String())
	}
	if err := WriteHTML(&html, s, HTMLOptions{}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(html.String(), "not run again: "+want) {
		t.Error("the HTML report does not say the proof was reused")
	}
}

// TestValidateRefusesAReusedProofOfAnAgent: only a passing adversary's arm can have been reused.
func TestValidateRefusesAReusedProofOfAnAgent(t *testing.T) {
	for _, e := range []Entry{entry("decoy-delete", "fenced", StatusPass), entry("decoy-delete", "control", StatusFail)} {
		e.Reused = &ReusedProof{Run: "first"}
		if err := Validate(Summary{Entries: []Entry{e}}); err == nil || !strings.Contains(err.Error(), "reused proof") {
			t.Errorf("%s %s: %v", e.Arm, e.Status, err)
		}
	}
}
