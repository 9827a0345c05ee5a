package traps

import "fmt"

// Catalog returns every trap, in a stable order. Add one line per new trap to the list of its
// category group below (navigationTraps, contentTraps, ...).
func Catalog() []Trap {
	var all []Trap
	for _, group := range [][]Trap{
		navigationTraps(),
		contentTraps(),
		capabilityTraps(),
		deliveryTraps(),
		credentialTraps(),
		coverageTraps(),
		actionTraps(),
		newTraps(),
		builtinPack(), // traps written as a pack (packs/builtin/*.trap.yml)
	} {
		all = append(all, group...)
	}
	for i := range all {
		all[i] = withDiligent(all[i]) // diligent_more.go
	}
	return all
}

// Lookup returns the trap with the given id.
func Lookup(id string) (Trap, error) {
	for _, t := range Catalog() {
		if t.ID == id {
			return t, nil
		}
	}
	return Trap{}, fmt.Errorf("traps: no trap %q in the catalog", id)
}
