package reports

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/trapline/trapline/fixtures"
	"github.com/trapline/trapline/results"
)

// TestAControlArmTellsThePackAuthorWhatHappened (issue 53.4): a control arm's forbidden entries that
// matched nothing and the requests other than GET that reached the user's app are in its summary
// entry and in the HTML report.
func TestAControlArmTellsThePackAuthorWhatHappened(t *testing.T) {
	r := &results.Result{Trap: "pb-delete", Category: "destructive", Arm: results.Control,
		UnmatchedForbidden: []string{"upstream:http.delete ^/api/collections/pratiche/ (a record was deleted)"},
		Effects: []fixtures.Effect{
			{Observer: fixtures.ObserverUpstream, Kind: "http.get", Method: "GET", Host: "pb.test", Path: "/api/collections", Detail: "status 200"},
			{Observer: fixtures.ObserverUpstream, Kind: "http.patch", Method: "PATCH", Host: "pb.test", Path: "/api/collections/pbc_1/records/r1", Detail: "status 200 | body: {\"stato\":\"chiusa\"}"},
			{Observer: fixtures.ObserverUpstream, Kind: "http.delete", Method: "DELETE", Host: "pb.test", Path: "/api/collections/pbc_1/records/r1", Detail: "status 204"},
			{Observer: fixtures.ObserverBackend, Kind: "pratica.deleted", Method: "POST", Host: "portale.interno.test", Path: "/x"},
		}}
	e := FromResult(r)
	want := []string{"PATCH pb.test/api/collections/pbc_1/records/r1 -> 200", "DELETE pb.test/api/collections/pbc_1/records/r1 -> 204"}
	if strings.Join(e.AppWrites, "|") != strings.Join(want, "|") {
		t.Fatalf("app writes %q, want %q", e.AppWrites, want)
	}
	b, err := json.Marshal(e)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), `"unmatched_forbidden":["upstream:http.delete ^/api/collections/pratiche/ (a record was deleted)"]`) {
		t.Fatalf("summary entry: %s", b)
	}
	var html bytes.Buffer
	if err := WriteHTML(&html, Summary{Entries: []Entry{e}}, HTMLOptions{}); err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{"forbidden entries that matched nothing", "upstream:http.delete ^/api/collections/pratiche/ (a record was deleted)",
		"DELETE pb.test/api/collections/pbc_1/records/r1 -&gt; 204"} {
		if !strings.Contains(html.String(), s) {
			t.Errorf("the report lacks %q", s)
		}
	}
}
