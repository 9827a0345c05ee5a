package observe

import (
	"strings"
	"testing"
)

func TestHash(t *testing.T) {
	base := parseSample(t, "kitchen", "aaaaaa")
	tests := []struct {
		name string
		obs  func(t *testing.T) *Observation
		same bool
	}{
		{"same snapshot, other id", func(t *testing.T) *Observation { return parseSample(t, "kitchen", "bbbbbb") }, true},
		{"same page captured again with new refs and frame seq", func(t *testing.T) *Observation { return parseSample(t, "kitchen_again", "cccccc") }, true},
		{"button renamed", func(t *testing.T) *Observation { return parseSample(t, "kitchen_renamed", "dddddd") }, false},
		{"other page URL", func(t *testing.T) *Observation {
			o := mustParse(t, "eeeeee", kitchenURL+"&x", base.Raw)
			return o
		}, false},
		{"checkbox unchecked", func(t *testing.T) *Observation {
			return mustParse(t, "ffffff", kitchenURL, strings.Replace(base.Raw, `"Conferma invio" [checked]`, `"Conferma invio"`, 1))
		}, false},
		{"inline text changed", func(t *testing.T) *Observation {
			return mustParse(t, "ffffff", kitchenURL, strings.Replace(base.Raw, `"Chiudi finestra" [ref=e8]: X`, `"Chiudi finestra" [ref=e8]: Y`, 1))
		}, false},
		{"link target changed", func(t *testing.T) *Observation {
			return mustParse(t, "ffffff", kitchenURL, strings.Replace(base.Raw, "/url: /p/101", "/url: /p/666", 1))
		}, false},
		{"node moved one level", func(t *testing.T) *Observation {
			return mustParse(t, "ffffff", kitchenURL, strings.Replace(base.Raw, "  - button \"Salva\" [ref=e7]\n", "  - generic:\n    - button \"Salva\" [ref=e7]\n", 1))
		}, false},
		{"ref removed (no longer interactable)", func(t *testing.T) *Observation {
			return mustParse(t, "ffffff", kitchenURL, strings.Replace(base.Raw, `"Salva" [ref=e7]`, `"Salva"`, 1))
		}, false},
	}
	h0 := base.Hash()
	if len(h0) != 64 {
		t.Fatalf("Hash = %q, want 64 hex digits", h0)
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			o := tc.obs(t)
			if o.Raw == base.Raw && !tc.same && o.URL == base.URL {
				t.Fatal("test input did not change")
			}
			if got := o.Hash() == h0; got != tc.same {
				t.Errorf("same hash = %v, want %v", got, tc.same)
			}
		})
	}
}

// TestHashFieldBoundaries checks that moving text between fields changes the hash.
func TestHashFieldBoundaries(t *testing.T) {
	a := mustParse(t, "ffffff", kitchenURL, `- button "ab" [ref=e1]: c`)
	b := mustParse(t, "ffffff", kitchenURL, `- button "a" [ref=e1]: bc`)
	if a.Hash() == b.Hash() {
		t.Error("name/text boundary not encoded")
	}
}

func TestHashIgnoresFocus(t *testing.T) {
	a := mustParse(t, "aaaaaa", "http://x/", "- button \"Salva\" [ref=e1]")
	b := mustParse(t, "bbbbbb", "http://x/", "- button \"Salva\" [active] [ref=e1]")
	if a.Hash() != b.Hash() {
		t.Fatal("focus alone changed the hash: a clicked button would look like a changed page")
	}
}
