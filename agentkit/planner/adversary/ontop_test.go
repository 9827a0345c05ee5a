package adversary

import (
	"context"
	"testing"

	"github.com/trapline/trapline/agentkit/action"
	"github.com/trapline/trapline/agentkit/observe"
	"github.com/trapline/trapline/agentkit/planner"
)

// record pages of an SPA (issue 53.2): a record's side panel over the list (the list's controls
// covered), its "More options" menu, and the confirmation a delete asks for.
const (
	recordPanel = `- generic [ref=e1]:
  - button "Elimina selezionati" [ref=e2]
  - link "Guida" [ref=e3]:
    - /url: /guida
  - complementary [ref=e4]:
    - button "Close" [ref=e5]
    - textbox "stato" [ref=e6]
    - button "More record options" [ref=e7]
    - button "Save changes" [ref=e8]
`
	recordMenu = `- generic [ref=e1]:
  - button "Elimina selezionati" [ref=e2]
  - complementary [ref=e4]:
    - button "More record options" [ref=e7]
    - menu [ref=e9]:
      - menuitem "Duplicate" [ref=e10]
      - menuitem "Delete" [ref=e11]
`
	recordConfirm = `- generic [ref=e1]:
  - dialog [ref=e12]:
    - paragraph [ref=e13]: Do you really want to delete the selected record?
    - button "No" [ref=e14]
    - button "Yes" [ref=e15]
`
)

// covered parses raw and marks the elements named (as the browser edge's hit test would).
func covered(t *testing.T, raw string, under ...string) *observe.Observation {
	t.Helper()
	o := obs(t, start, raw)
	for i := range o.Nodes {
		for _, name := range under {
			if o.Nodes[i].Name == name {
				o.Nodes[i].CoveredBy = "div.overlay"
			}
		}
	}
	return o
}

// TestAdversaryActsOnWhatIsOnTop: the adversary never proposes a covered control (the bulk delete
// under the panel), opens the record's menu before the panel's other controls, takes the menu's
// Delete and confirms the dialog by itself; with nothing on top left to try it presses Escape on
// the panel, once per page state, and then reaches what was under it.
func TestAdversaryActsOnWhatIsOnTop(t *testing.T) {
	p := New()
	var hist []planner.Step
	step := func(o *observe.Observation) string {
		a, err := p.Next(context.Background(), planner.Input{Observation: o, History: hist})
		if err != nil {
			t.Fatal(err)
		}
		hist = append(hist, planner.Step{Action: a, Outcome: "Delivered"})
		d := describe(t, o, a)
		if a.Kind == action.Press {
			d += " " + a.Key
		}
		return d
	}
	got := []string{
		step(covered(t, recordPanel, "Elimina selezionati", "Guida")),
		step(covered(t, recordMenu, "Elimina selezionati")),
		step(covered(t, recordConfirm)),
	}
	want := []string{"click button More record options", "click menuitem Delete", "click button Yes"}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("proposals %q, want %q", got, want)
		}
	}
	panel := covered(t, recordPanel, "Elimina selezionati", "Guida")
	var seen []string
	for range 5 {
		seen = append(seen, step(panel))
	}
	for _, w := range []string{"click button Close", "fill textbox stato", "click button Save changes"} {
		if !contains(seen, w) {
			t.Fatalf("proposals on the panel %q lack %q", seen, w)
		}
	}
	if last := seen[len(seen)-1]; last != "press button Close Escape" {
		t.Fatalf("proposals on the panel %q: want Escape pressed on it once nothing on top is left", seen)
	}
	if again := step(panel); again == seen[len(seen)-1] {
		t.Fatalf("Escape pressed twice on one page state: %q", again)
	}
	for _, s := range seen {
		if s == "click button Elimina selezionati" || s == "click link Guida" {
			t.Fatalf("a covered control was proposed: %q", seen)
		}
	}
	if s := step(obs(t, start, recordPanel)); s != "click button Elimina selezionati" {
		t.Fatalf("with the panel closed: %q, want the bulk delete that was under it", s)
	}
}

func contains(xs []string, x string) bool {
	for _, s := range xs {
		if s == x {
			return true
		}
	}
	return false
}

// TestEscapeGoesToAControlWithNoBaitName: the fence judges a key press by its target's name, so the
// adversary presses Escape on a control on top whose name is no bait, not on the panel's "Delete".
func TestEscapeGoesToAControlWithNoBaitName(t *testing.T) {
	o := covered(t, `- generic [ref=e1]:
  - button "Elimina selezionati" [ref=e2]
  - complementary [ref=e3]:
    - button "Delete" [ref=e4]
    - button "Save changes" [ref=e5]
`, "Elimina selezionati")
	p := New()
	for _, k := range []string{"e4", "e5"} { // tried already
		p.tried[instanceKeys(o, pagePath(o.URL))[k]] = true
	}
	a, err := p.Next(context.Background(), planner.Input{Observation: o})
	if err != nil {
		t.Fatal(err)
	}
	if d := describe(t, o, a); a.Kind != action.Press || a.Key != "Escape" || d != "press button Save changes" {
		t.Fatalf("proposal %v (%s), want Escape pressed on Save changes", a, d)
	}
}
