package observe

import (
	"errors"
	"testing"
)

func TestUnique(t *testing.T) {
	raw := `- generic [ref=e1]:
  - row "Pratica 8" [ref=e2]:
    - button "Salva" [ref=e3]
  - row "Pratica 9" [ref=e4]:
    - button "Salva" [ref=e5]
  - button "Annulla modifiche" [ref=e6]
  - link "Dettaglio" [ref=e7]:
    - /url: /pratiche/8
  - link "Dettaglio" [ref=e8]:
    - /url: /pratiche/9
  - link "Aiuto" [ref=e9]:
    - /url: /aiuto
  - link "Aiuto" [ref=e10]:
    - /url: /aiuto
  - button [ref=e11]
  - button [ref=e12]
`
	o := mustParse(t, "s1", "http://portale.interno.test/pratiche", raw)
	for ref, ambiguous := range map[string]bool{"s1:e3": true, "s1:e5": true, "s1:e6": false, "s1:e7": false, "s1:e9": true, "s1:e11": false} {
		n, err := o.Lookup(ref)
		if err != nil {
			t.Fatal(err)
		}
		err = o.Unique(n)
		if got := errors.Is(err, ErrAmbiguousTarget); got != ambiguous {
			t.Errorf("Unique(%s %q) = %v, want ambiguous %v", n.Role, n.Name, err, ambiguous)
		}
	}
}
