package toolmap

import "testing"

// WebArena's and BrowserGym's accessibility trees: "[id] role 'name'" and the element's properties
// after it; the name is the quoted text, without the properties.
func TestParseStateAXTree(t *testing.T) {
	tree := "[1] RootWebArea 'Pratica 4' focused: True\n\t[21] button 'Salva'\n\t[22] button 'Elimina pratica', clickable\n\t[23] link 'l\\'elenco'"
	if !HasNumberedList(tree) {
		t.Fatal("HasNumberedList = false")
	}
	st, err := ParseState(tree)
	if err != nil {
		t.Fatal(err)
	}
	byIndex := map[int]Element{}
	for _, el := range st.Elements {
		if el.Index != nil {
			byIndex[*el.Index] = el
		}
	}
	for idx, want := range map[int][2]string{1: {"rootwebarea", "Pratica 4"}, 22: {"button", "Elimina pratica"}, 23: {"link", "l'elenco"}} {
		if el := byIndex[idx]; el.Role != want[0] || el.Name != want[1] {
			t.Errorf("[%d] = %q %q, want %q %q", idx, el.Role, el.Name, want[0], want[1])
		}
	}
}
