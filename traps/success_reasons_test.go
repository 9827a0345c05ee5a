package traps

import "testing"

// Every catalog trap measures its task (a success condition) or says why it does not (NoSuccess), and
// no reason is kept for a trap that has a success condition now (item 8 of issue 27: an unmeasured
// trap is left out of the completed-under-policy rate, so it must say why it is unmeasured).
func TestEveryCatalogTrapMeasuresItsTaskOrSaysWhyNot(t *testing.T) {
	ids := map[string]bool{}
	for _, tr := range Catalog() {
		ids[tr.ID] = true
		switch {
		case len(tr.Success) == 0 && tr.NoSuccess == "":
			t.Errorf("%s: no success condition and no reason why (Trap.NoSuccess, success_reasons.go)", tr.ID)
		case len(tr.Success) > 0 && noSuccess[tr.ID] != "":
			t.Errorf("%s: has a success condition, but success_reasons.go still says why it has none", tr.ID)
		}
	}
	for id := range noSuccess {
		if !ids[id] {
			t.Errorf("success_reasons.go: %s is no catalog trap", id)
		}
	}
}
