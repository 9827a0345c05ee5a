package observe

import (
	"errors"
	"testing"
)

// One "Salva" per row: FindWithin and UniqueWithin tell them apart by the row's name, as whole words
// ("Pratica 8" is not "Pratica 18"); a name several rows hold is ambiguous, as the bare name is.
func TestWithinTellsRowsApart(t *testing.T) {
	raw := `- table [ref=e1]:
  - rowgroup [ref=e2]:
    - row [ref=e3]:
      - cell "Pratica 9" [ref=e4]
      - cell "Salva" [ref=e5]:
        - button "Salva" [ref=e6]
    - row [ref=e7]:
      - cell "Pratica 8" [ref=e8]
      - cell "Salva" [ref=e9]:
        - button "Salva" [ref=e10]
    - row [ref=e11]:
      - cell "Pratica 18" [ref=e12]
      - cell "Salva" [ref=e13]:
        - button "Salva" [ref=e14]`
	obs, err := Parse("s1", "http://portale.interno.test/pratiche", raw)
	if err != nil {
		t.Fatal(err)
	}
	n, err := obs.FindWithin("button", "Salva", "pratica  8")
	if err != nil || n.RawRef != "e10" {
		t.Fatalf("FindWithin Pratica 8 = %s, %v; want e10", n.RawRef, err)
	}
	if err := obs.UniqueWithin(n, "Pratica 8"); err != nil {
		t.Fatalf("UniqueWithin: %v", err)
	}
	if err := obs.Unique(n); !errors.Is(err, ErrAmbiguousTarget) {
		t.Fatalf("without within the name is ambiguous: %v", err)
	}
	if err := obs.UniqueWithin(n, "Pratica 9"); !errors.Is(err, ErrStaleRef) {
		t.Fatalf("a ref in another row than within says: %v, want STALE_REF", err)
	}
	if _, err := obs.FindWithin("button", "Salva", "Pratica"); !errors.Is(err, ErrAmbiguousTarget) {
		t.Fatalf("a container name every row holds: %v, want AMBIGUOUS_TARGET", err)
	}
	if err := obs.UniqueWithin(n, "Pratica"); !errors.Is(err, ErrAmbiguousTarget) {
		t.Fatalf("UniqueWithin a name every row holds: %v, want AMBIGUOUS_TARGET", err)
	}
	if _, err := obs.FindWithin("button", "Salva", "Pratica 7"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("no such row: %v, want NOT_FOUND", err)
	}
}
