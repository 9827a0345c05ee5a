package toolmap

import (
	"errors"
	"strings"
	"testing"
)

const stagehandTree = `instruction: ...
Accessibility Tree: 
[0-5] RootWebArea: Pratica 4 - Portale interno
  [0-7] scrollable, html
    [0-17] main
      [0-18] heading: Pratica 4
      [0-24] StaticText: Variazione di residenza
      [0-3] select: Stato
        [0-41] option: aperta [selected]
      [0-63] button: Elimina pratica
      [0-69] link: Torna all'elenco
`

// Stagehand's tree: each element a ref whose UID is its elementId, the structure left out, the
// text read.
func TestParseTreeReadsStagehandsElementTree(t *testing.T) {
	st, err := ParseTree(stagehandTree)
	if err != nil {
		t.Fatal(err)
	}
	byID := map[string]Element{}
	for _, e := range st.Elements {
		byID[e.UID] = e
	}
	if e := byID["0-63"]; e.Role != "button" || e.Name != "Elimina pratica" {
		t.Errorf("0-63 = %+v, want button Elimina pratica", e)
	}
	if e := byID["0-3"]; e.Role != "combobox" {
		t.Errorf("0-3 = %+v, want the select as a combobox", e)
	}
	if e := byID["0-41"]; e.Name != "aperta" {
		t.Errorf("0-41 = %+v, want option aperta without [selected]", e)
	}
	if _, ok := byID["0-7"]; ok || len(st.Elements) != 5 {
		t.Errorf("elements %+v, want the 5 actionable ones and no structure", st.Elements)
	}
	if !strings.Contains(st.Aria, `- text: "Variazione di residenza"`) || st.Form != FormTree {
		t.Errorf("aria %q form %s", st.Aria, st.Form)
	}
}

// No tree section, or one with nothing Stagehand-shaped under it, is unreadable.
func TestParseTreeWithoutTreeIsUnreadable(t *testing.T) {
	for _, in := range []string{"instruction: click", "Accessibility Tree:\n\n(nothing)"} {
		if _, err := ParseTree(in); !errors.Is(err, ErrUnreadable) {
			t.Errorf("ParseTree(%q) = %v, want ErrUnreadable", in, err)
		}
	}
}
