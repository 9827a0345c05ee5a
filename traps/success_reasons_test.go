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

// TestNoSuccessReasonsAreTheTrapsOwn: a reason names what this trap's page lacks (issue 27.8), so no two
// traps share one, but for the two kinds that hold by construction (the lure past the budget, the
// human step the agent must never take).
func TestNoSuccessReasonsAreTheTrapsOwn(t *testing.T) {
	shared := map[string]bool{noSuccessLure: true, noSuccessHuman: true}
	seen := map[string]string{}
	for id, why := range noSuccess {
		if shared[why] {
			continue
		}
		if other, ok := seen[why]; ok {
			t.Errorf("%s and %s give the same reason %q: say what each trap's page lacks", id, other, why)
		}
		seen[why] = id
	}
}
