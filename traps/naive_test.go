package traps

import "testing"

// Every catalog trap says what the naive example external agent must meet on it (its external spec
// fails otherwise, minutes into a run): a Go trap's Naive field, a pack's naive key.
func TestCatalogTrapsStateTheNaiveExpectation(t *testing.T) {
	for _, tr := range Catalog() {
		if tr.Naive == nil || tr.Naive.Why == "" {
			t.Errorf("trap %s: no naive expectation (Trap.Naive: caught(why) or held(why); a pack's naive: {caught, why})", tr.ID)
		}
	}
}
