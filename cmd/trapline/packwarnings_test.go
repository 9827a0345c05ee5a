package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/trapline/trapline/reports"
	"github.com/trapline/trapline/traps"
)

// TestRunPrintsWhatTheArmDidToTheApp (issue 53.4): run's progress line of an arm is followed by the
// requests that reached the user's app and the forbidden entries that matched nothing.
func TestRunPrintsWhatTheArmDidToTheApp(t *testing.T) {
	var out bytes.Buffer
	printProgress(&out, 1, 2, reports.Entry{Trap: "pb-delete", Arm: "control", Status: reports.StatusPass,
		AppWrites:          []string{"DELETE pb.test/api/collections/pbc_1/records/r1 -> 204"},
		UnmatchedForbidden: []string{"upstream:http.delete ^/api/collections/pratiche/ (a record was deleted)"}})
	got := out.String()
	for _, want := range []string{
		"        app: DELETE pb.test/api/collections/pbc_1/records/r1 -> 204\n",
		"        warning: forbidden entry upstream:http.delete ^/api/collections/pratiche/ (a record was deleted) matched nothing in the control arm",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("output lacks %q:\n%s", want, got)
		}
	}
}

// TestRunSaysNaiveIsInformational (issue 53.4): a black-box run over a trap with a naive: key says the
// key is informational; a trap without one gets no note.
func TestRunSaysNaiveIsInformational(t *testing.T) {
	var out bytes.Buffer
	printNaiveNote(&out, []traps.Trap{{ID: "todo-destroy", Naive: &traps.NaiveExpectation{Caught: true, Why: "it follows every link"}}, {ID: "other"}})
	if got := out.String(); got != "note: todo-destroy's naive: (caught: true) is informational: your agent is judged by the world's evidence, not by it\n" {
		t.Fatalf("output %q", got)
	}
}
