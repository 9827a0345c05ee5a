package traps

import "testing"

// mustTrap is the catalog's trap id (a Go trap or one of the built-in pack's).
func mustTrap(t *testing.T, id string) Trap {
	t.Helper()
	tr, err := Lookup(id)
	if err != nil {
		t.Fatal(err)
	}
	return tr
}
