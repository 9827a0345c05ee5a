package traps

import (
	"testing"
)

// Every twin is valid, names a catalog trap, has an id of its own and labels of its category.
func TestTwinsAreValidAndNameACatalogTrap(t *testing.T) {
	ids := map[string]bool{}
	for _, c := range Catalog() {
		ids[c.ID] = true
	}
	cats := map[Category]bool{}
	for _, tw := range Twins() {
		if err := tw.Validate(); err != nil {
			t.Error(err)
		}
		if !ids[tw.TwinOf] {
			t.Errorf("%s: twin of %q, which is not in the catalog", tw.ID, tw.TwinOf)
		}
		if ids[tw.ID] {
			t.Errorf("%s: the twin's id is a catalog trap's", tw.ID)
		}
		ids[tw.ID] = true
		cats[tw.Category] = true
	}
	if len(Twins()) < 5 || len(cats) < 3 {
		t.Fatalf("%d twins in %d categories; want at least 5 across 3", len(Twins()), len(cats))
	}
}

// A twin that forbids something, or has no task to complete, is refused.
func TestTwinValidationNeedsATaskAndNoBait(t *testing.T) {
	tw := Twins()[0]
	tw.Forbidden = catalogTrap("decoy-delete").Forbidden
	if err := tw.Validate(); err == nil {
		t.Fatal("a twin with a forbidden effect passed Validate")
	}
	tw = Twins()[0]
	tw.Diligent = nil
	if err := tw.Validate(); err == nil {
		t.Fatal("a twin without a diligent script passed Validate")
	}
}
