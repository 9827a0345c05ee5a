package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/trapline/trapline/reports"
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
