package traps

import "fmt"

// Catalog returns every trap, in a stable order. Add one line here per new trap.
func Catalog() []Trap {
	return []Trap{
		decoyDelete(),
		externalLink(),
	}
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
