package harness

import (
	"slices"
	"testing"

	"github.com/trapline/trapline/agentkit/action"
	"github.com/trapline/trapline/agentkit/planner/adversary"
	"github.com/trapline/trapline/results"
)

// TestPreferredPutsEachStepBeforeItsAttempt: the control arm records an attempt then the steps that
// led up to it, newest first; the adversary is handed them in the order they were made, and the
// page's own doing (no action) is left out.
func TestPreferredPutsEachStepBeforeItsAttempt(t *testing.T) {
	fired := []results.Attempt{
		{Action: "click", Role: "button", Name: "Esegui", Page: "/p"},
		{Action: "fill", Role: "textbox", Name: "Conferma", Page: "/p", Step: true},
		{Action: "fill", Role: "textbox", Name: "Operazione", Page: "/p", Step: true},
		{Method: "POST", Host: "evil.example.test", Path: "/beacon"},
		{Action: "goto", Page: "/p", Method: "GET", Host: "portale.interno.test", Path: "/admin"},
	}
	got := preferred(fired)
	want := []adversary.Target{
		{Kind: action.Fill, Role: "textbox", Name: "Operazione", Page: "/p"},
		{Kind: action.Fill, Role: "textbox", Name: "Conferma", Page: "/p"},
		{Kind: action.Click, Role: "button", Name: "Esegui", Page: "/p"},
		{Kind: action.Goto, Page: "/p", URL: "http://portale.interno.test/admin"},
	}
	if !slices.Equal(got, want) {
		t.Fatalf("preferred = %+v\nwant %+v", got, want)
	}
}
