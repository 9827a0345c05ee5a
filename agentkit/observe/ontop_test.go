package observe

import (
	"strings"
	"testing"
)

// panelAndMenu is the snapshot (with boxes) of a record list behind an open side panel (an overlay
// neither inert nor aria-modal) whose "More options" menu is open: the list's controls lie under the
// panel, the panel's and the menu's on top.
const panelAndMenu = `- generic [ref=e1] [box=0,0,1280,800]:
  - table [ref=e2] [box=0,60,1280,400]:
    - row "pratica 1 aperta" [ref=e3] [box=0,60,1280,40]:
      - checkbox "Select pratica 1" [ref=e4] [box=10,70,16,16]
      - button "Delete" [ref=e5] [box=1180,66,80,28]
  - complementary "Record" [ref=e6] [box=880,0,400,800]:
    - textbox "stato" [ref=e7] [box=900,100,360,30]
    - button "More options" [ref=e8] [box=1200,20,60,30]
    - menu [ref=e9] [box=1060,50,200,80]:
      - menuitem "Delete" [ref=e10] [box=1060,50,200,40]
      - menuitem "Duplicate" [ref=e11] [box=1060,90,200,40]
    - button "Close" [ref=e12] [box=900,20,60,30]
`

func TestBoxesAreReadAndLeftOutOfTheHash(t *testing.T) {
	o, err := Parse("s1", "http://app.test/_/", panelAndMenu)
	if err != nil || !o.Complete {
		t.Fatalf("parse: %v %v", err, o.Warnings)
	}
	n, err := o.Find("menuitem", "Delete")
	if err != nil {
		t.Fatal(err)
	}
	if n.Box != [4]int{1060, 50, 200, 40} {
		t.Fatalf("box = %+v", n.Box)
	}
	if _, ok := n.States["box"]; ok {
		t.Fatal("the box is a state")
	}
	moved, err := Parse("s2", "http://app.test/_/", strings.ReplaceAll(panelAndMenu, "[box=1060,50,200,40]", "[box=1060,51,200,40]"))
	if err != nil {
		t.Fatal(err)
	}
	if moved.Hash() != o.Hash() {
		t.Fatal("a moved box changed the page's hash")
	}
	bad, _ := Parse("s3", "", "- generic [ref=e9]\n- button \"x\" [ref=e1] [box=1,2,3]")
	if bad.Complete {
		t.Fatal("a bad box was read as complete")
	}
}

func TestCompactShowsCoveredElements(t *testing.T) {
	o, err := Parse("s1", "http://app.test/_/", panelAndMenu)
	if err != nil {
		t.Fatal(err)
	}
	for i := range o.Nodes { // the row's controls lie under the panel (the browser edge's hit test)
		if r := o.Nodes[i].RawRef; r == "e4" || r == "e5" {
			o.Nodes[i].CoveredBy = "aside.panel"
		}
	}
	c, err := o.Compact(CompactOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`s1:e5 button "Delete" [covered]`, `s1:e10 menuitem "Delete"` + "\n", `s1:e4 checkbox "Select pratica 1" [covered]`} {
		if !strings.Contains(c.Text, want) {
			t.Errorf("compact lacks %q:\n%s", want, c.Text)
		}
	}
	clean, _ := Parse("s2", "http://app.test/_/", panelAndMenu)
	if o.Hash() != clean.Hash() {
		t.Fatal("covering changed the hash: the page's content is the same")
	}
}

// hiddenToggles is Chromium's snapshot of three row checkboxes drawn by their labels (0×0 inputs):
// a field wrapper with an input and an empty label for it, a label around the input, a label around
// the input and its text; and a wrapper that holds a button too (no one toggle's label).
const hiddenToggles = `- table [ref=e2] [box=8,8,141,76]:
  - row "pratica 1" [ref=e4] [box=10,10,137,24]:
    - cell [ref=e5] [box=10,10,77,24]:
      - generic [ref=e6] [box=11,11,75,22]:
        - checkbox [box=15,14,0,0]
  - row [ref=e9] [box=10,36,137,24]:
    - generic [ref=e11] [box=11,41,18,17]:
      - checkbox "Select 2" [box=33,40,0,0]
  - row [ref=e13] [box=10,62,137,20]:
    - generic [ref=e15] [box=11,63,75,17]:
      - checkbox "Select three" [box=15,66,0,0]
      - text: Select three
  - generic [ref=e20] [box=11,90,75,17]:
    - checkbox "Select four" [box=15,90,0,0]
    - button "Open" [ref=e21] [box=40,90,30,17]
`

// TestHiddenTogglesAreReachedThroughTheirLabel (issue 53.2): a visually hidden native checkbox takes
// the ref and box of the label or wrapper around it, which stood for nothing else; a wrapper with
// another control keeps its ref and the checkbox stays out of reach.
func TestHiddenTogglesAreReachedThroughTheirLabel(t *testing.T) {
	o, err := Parse("s1", "http://app.test/", hiddenToggles)
	if err != nil || !o.Complete {
		t.Fatalf("parse: %v %v", err, o.Warnings)
	}
	for name, ref := range map[string]string{"": "e6", "Select 2": "e11", "Select three": "e15"} {
		n, err := o.Find("checkbox", name)
		if err != nil {
			t.Fatal(err)
		}
		if n.RawRef != ref || !n.ViaLabel || n.Box[2] == 0 {
			t.Errorf("checkbox %q: ref %q via label %v box %v, want %s through its label", name, n.RawRef, n.ViaLabel, n.Box, ref)
		}
		if got, err := o.Lookup("s1:" + ref); err != nil || got.Role != "checkbox" {
			t.Errorf("lookup %s: %v %v", ref, got.Role, err)
		}
	}
	for _, n := range o.Elements() {
		if n.Role == "generic" && n.RawRef != "e20" {
			t.Errorf("the label %s kept its ref", n.RawRef)
		}
	}
	if _, err := o.Find("checkbox", "Select four"); err == nil {
		t.Error("a checkbox beside another control was given its wrapper's ref")
	}
}
