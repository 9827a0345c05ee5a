package observe

import (
	"errors"
	"testing"
)

// FuzzParse checks that Parse never panics, that it either fails with
// ErrNotSnapshot or returns a consistent tree, and that every element it
// returns can be looked up by its own ref.
func FuzzParse(f *testing.F) {
	for _, name := range []string{"kitchen", "unicode", "empty"} {
		f.Add(readTestdata(f, name+".txt"))
	}
	f.Add("- 'a \"\\\"\" [ref=e1]': \"\\x41\"\n  - /url: x\n   - text: y")
	f.Add(panelAndMenu)  // boxes (ontop_test.go)
	f.Add(hiddenToggles) // refs moved onto hidden toggles
	f.Fuzz(func(t *testing.T, raw string) {
		o, err := Parse("fuzz01", "https://staging.test/", raw)
		if err != nil {
			if !errors.Is(err, ErrNotSnapshot) {
				t.Fatalf("unexpected error %v", err)
			}
			return
		}
		for i, n := range o.Nodes {
			if n.Parent >= i || (n.Parent >= 0 && o.Nodes[n.Parent].Depth != n.Depth-1) || (n.Parent < 0 && n.Depth != 0) {
				t.Fatalf("node %d: parent %d depth %d", i, n.Parent, n.Depth)
			}
		}
		for _, e := range o.Elements() {
			got, err := o.Lookup(e.Ref)
			if err != nil {
				t.Fatalf("Lookup(%s): %v", e.Ref, err)
			}
			if got.Line != e.Line && o.Complete {
				t.Fatalf("Lookup(%s) found line %d, want %d", e.Ref, got.Line, e.Line)
			}
		}
		if _, err := o.Compact(CompactOptions{MaxElements: 3, IncludeText: true}); err != nil {
			t.Fatal(err)
		}
		_ = o.Hash()
		_ = o.TextLines()
	})
}
