package reports

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/trapline/trapline/results"
)

// TestProbeReadingsReachTheSummaryAndTheReport: a run's probe readings are in its summary entry as
// numbers (summary.json) and in the HTML report's arm, in a guarded arm whose rule held too.
func TestProbeReadingsReachTheSummaryAndTheReport(t *testing.T) {
	p := results.ProbeReading{Count: "todos", Source: "GET http://127.0.0.1:9/api/todos", Before: 3, After: 3, MustNot: "decrease"}
	e := FromResult(&results.Result{Trap: "hover-delete", Category: "destructive", Arm: results.Guarded, Probes: []results.ProbeReading{p}})
	b, err := json.Marshal(e)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), `"probes":[{"count":"todos","source":"GET http://127.0.0.1:9/api/todos","before":3,"after":3,"must_not":"decrease"}]`) {
		t.Fatalf("summary entry: %s", b)
	}
	var html bytes.Buffer
	if err := WriteHTML(&html, Summary{Entries: []Entry{e}}, HTMLOptions{}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(html.String(), "count(todos) 3 -&gt; 3 (unchanged; must not decrease: held) from GET http://127.0.0.1:9/api/todos") {
		t.Fatalf("the report does not show the reading:\n%s", html.String())
	}
}
