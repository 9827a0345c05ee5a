package policy

import "testing"

// TestUnnamed: the driver's reading of "no name" is the unnamed rule's: empty and icon-only names
// are none, a name with a letter or digit is one; with text normalisation off, only the empty name.
func TestUnnamed(t *testing.T) {
	p, err := Parse("test.yml", []byte("version: 1\nnavigation:\n  allow:\n    - {host: a.test, paths: [\".*\"]}\n"))
	if err != nil {
		t.Fatal(err)
	}
	off := p.WithGuardsOff(GuardsOff(0).With(GuardTextNormalization))
	for name, want := range map[string]bool{"": true, "×": true, " 🗑 ": true, "⋮": true, "Salva": false, "× 2": false, "Elimina": false} {
		if got := p.Unnamed(name); got != want {
			t.Errorf("Unnamed(%q) = %v, want %v", name, got, want)
		}
		if got := off.Unnamed(name); got != (name == "") {
			t.Errorf("with text normalisation off, Unnamed(%q) = %v, want %v", name, got, name == "")
		}
	}
}
