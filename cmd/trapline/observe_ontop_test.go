package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/trapline/trapline/agentkit/observe"
)

// TestObservePrintsWhatIsOnTop (issue 53.2/53.5): each element's ON TOP column says yes, yes by its
// label for a hidden toggle, or what covers it.
func TestObservePrintsWhatIsOnTop(t *testing.T) {
	obs, err := observe.Parse("s1", "http://app.test/", "- generic [ref=e1]:\n  - button \"Delete\" [ref=e2]\n  - generic [ref=e3]:\n    - checkbox \"Select 1\"\n  - button \"Close\" [ref=e4]\n")
	if err != nil {
		t.Fatal(err)
	}
	obs.Nodes[1].CoveredBy = "aside.panel"
	var out bytes.Buffer
	if err := printObservation(&out, obs); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"ON TOP", `button    "Delete"    no (covered by aside.panel)`, `checkbox  "Select 1"  yes (by its label)`, `button    "Close"     yes`} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}
}
