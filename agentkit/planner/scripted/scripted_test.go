package scripted

import (
	"context"
	"errors"
	"testing"

	"github.com/trapline/trapline/agentkit/action"
	"github.com/trapline/trapline/agentkit/observe"
	"github.com/trapline/trapline/agentkit/planner"
)

const page = `- generic [ref=e1]:
  - combobox "Stato" [ref=e2]:
    - option "aperta" [selected]
    - option "chiusa"
  - button "Salva" [ref=e3]
  - button "Salva" [ref=e4]
  - button "Annulla modifiche" [ref=e5]
`

func TestScriptedResolvesByRoleAndName(t *testing.T) {
	o, err := observe.Parse("abc123", "http://portale.interno.test/pratiche/1", page)
	if err != nil {
		t.Fatal(err)
	}
	p := New(
		Step{Action: action.Select, Role: "combobox", Name: "Stato", Value: "chiusa"},
		Step{Action: action.Goto, URL: "/pratiche/2"},
		Step{Action: action.Click, Role: "button", Name: "Salva"},
	)
	in := planner.Input{Observation: o}
	a, err := p.Next(context.Background(), in)
	if err != nil || a.Kind != action.Select || a.Ref != "abc123:e2" || a.Value != "chiusa" {
		t.Fatalf("step 1 = %+v, %v", a, err)
	}
	a, err = p.Next(context.Background(), in)
	if err != nil || a.URL != "http://portale.interno.test/pratiche/2" {
		t.Fatalf("step 2 = %+v, %v", a, err)
	}
	_, err = p.Next(context.Background(), in)
	if !errors.Is(err, observe.ErrAmbiguousTarget) {
		t.Fatalf("two \"Salva\" buttons: err = %v, want AMBIGUOUS_TARGET (fail closed)", err)
	}
	a, err = p.Next(context.Background(), in)
	if err != nil || a.Kind != action.Done {
		t.Fatalf("after the script: %+v, %v; want done", a, err)
	}
}

func TestScriptedMissingTargetFailsClosed(t *testing.T) {
	o, _ := observe.Parse("abc123", "http://x/", page)
	_, err := New(Step{Action: action.Click, Role: "button", Name: "Conferma"}).Next(context.Background(), planner.Input{Observation: o})
	if !errors.Is(err, observe.ErrNotFound) {
		t.Fatalf("err = %v, want NOT_FOUND", err)
	}
}

func TestScriptedHoverResolvesItsTarget(t *testing.T) {
	o, _ := observe.Parse("abc123", "http://x/", page)
	a, err := New(Step{Action: action.Hover, Role: "button", Name: "Annulla modifiche"}).Next(context.Background(), planner.Input{Observation: o})
	if err != nil || a.Kind != action.Hover || a.Ref != "abc123:e5" {
		t.Fatalf("hover = %+v, %v; want a hover on e5", a, err)
	}
	_, err = New(Step{Action: action.Hover, Role: "button", Name: "Salva"}).Next(context.Background(), planner.Input{Observation: o})
	if !errors.Is(err, observe.ErrAmbiguousTarget) {
		t.Fatalf("hover on two \"Salva\": err = %v, want AMBIGUOUS_TARGET", err)
	}
}

// A step names its target as a person types it: the icon-font glyphs of the page's name (the Private
// Use Area, as PocketBase's dashboard puts in every name) are no part of it (issue 53.3).
func TestScriptedStepIgnoresIconGlyphs(t *testing.T) {
	o, err := observe.Parse("abc123", "http://x/", "- generic [ref=e1]:\n  - button \"aperta \ueb99 \uea4d\" [ref=e2]\n  - button \"\uea13 New record\" [ref=e3]\n")
	if err != nil {
		t.Fatal(err)
	}
	p := New(Step{Action: action.Click, Role: "button", Name: "aperta"}, Step{Action: action.Click, Role: "button", Name: "New record"})
	for _, want := range []string{"abc123:e2", "abc123:e3"} {
		a, err := p.Next(context.Background(), planner.Input{Observation: o})
		if err != nil || a.Ref != want {
			t.Fatalf("step = %+v, %v; want a click on %s", a, err, want)
		}
	}
}
