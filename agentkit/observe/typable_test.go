package observe

import (
	"strings"
	"testing"
)

// Icon-font glyphs (the Private Use Area, planes 15 and 16, the object replacement character and a
// variation selector after one) leave a name; everything a person can type or see as a character
// stays, and a name without glyphs is returned byte for byte.
func TestTypableName(t *testing.T) {
	cases := []struct{ in, want string }{
		{"aperta \ueb99 \uea4d", "aperta"}, // PocketBase's dashboard (issue 53.3)
		{"\uea13 New record", "New record"},
		{"\ue000Salva", "Salva"},
		{"Salva\uf8ff", "Salva"},                      // the last BMP private use character
		{"\U000F0001 Elimina", "Elimina"},             // plane 15
		{"Esporta \U0010FFFD", "Esporta"},             // plane 16
		{"\ue001\ufe0f Impostazioni", "Impostazioni"}, // a variation selector after the glyph
		{"Foto \ufffc allegata", "Foto allegata"},
		{"\ue001", ""},
		{"\ue001 \ue002", ""},
		// Unchanged: no glyph, so not even the spaces are touched.
		{"Salva", "Salva"},
		{"  Salva  bozza ", "  Salva  bozza "},
		{"🗑", "🗑"},
		{"×", "×"},
		{"❤\ufe0f Preferiti", "❤\ufe0f Preferiti"},
		{"x\ufffdy", "x\ufffdy"}, // undecodable text is no picture
		{"Eli\u200bmina", "Eli\u200bmina"},
		{"", ""},
	}
	for _, c := range cases {
		if got := TypableName(c.in); got != c.want {
			t.Errorf("TypableName(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

const iconNames = "- generic [ref=e1]:\n" +
	"  - button \"aperta \ueb99 \uea4d\" [ref=e2]\n" +
	"  - button \"\uea13 New record\" [ref=e3]\n" +
	"  - button \"\ue0b1\" [ref=e4]\n" +
	"  - link \"Torna all'elenco\" [ref=e5]:\n" +
	"    - /url: /pratiche\n"

// The observation names elements as a person can type them and keeps the page's name beside; a step
// finds a target by the typable name or by the name as the page gave it; the planner's view shows the
// typable name; the hash still sees an icon change.
func TestIconGlyphsLeaveNamesNotEvidence(t *testing.T) {
	o := mustParse(t, "ico001", "http://portale.interno.test/", iconNames)
	want := map[string][2]string{ // raw ref -> {Name, RawName}
		"e2": {"aperta", "aperta \ueb99 \uea4d"},
		"e3": {"New record", "\uea13 New record"},
		"e4": {"", "\ue0b1"},
		"e5": {"Torna all'elenco", "Torna all'elenco"},
	}
	for _, n := range o.Nodes {
		w, ok := want[n.RawRef]
		if !ok {
			continue
		}
		if n.Name != w[0] || n.RawName != w[1] || n.EvidenceName() != w[1] {
			t.Errorf("%s: Name %q RawName %q EvidenceName %q; want %q, %q", n.RawRef, n.Name, n.RawName, n.EvidenceName(), w[0], w[1])
		}
	}
	for _, step := range []string{"aperta", "aperta \ueb99 \uea4d", "aperta \ueb99"} {
		if n, err := o.Find("button", step); err != nil || n.RawRef != "e2" {
			t.Errorf("Find(button, %q) = %s, %v; want e2", step, n.RawRef, err)
		}
	}
	if n, err := o.Find("button", "New record"); err != nil || n.RawRef != "e3" {
		t.Errorf("Find(button, New record) = %s, %v; want e3", n.RawRef, err)
	}
	view, err := o.Compact(CompactOptions{MaxElements: 50})
	if err != nil {
		t.Fatal(err)
	}
	if strings.ContainsFunc(view.Text, isIconGlyph) || !strings.Contains(view.Text, `"aperta"`) {
		t.Errorf("the planner's view keeps icon glyphs or lost the name:\n%s", view.Text)
	}
	changed := mustParse(t, "ico002", "http://portale.interno.test/", strings.Replace(iconNames, "\ueb99", "\ueb9a", 1))
	if o.Hash() == changed.Hash() {
		t.Error("an icon that changed leaves the page's hash unchanged")
	}
}

// Fuzz: TypableName leaves no icon glyph, is idempotent, and returns a name without glyphs unchanged.
func FuzzTypableName(f *testing.F) {
	for _, s := range []string{"aperta \ueb99 \uea4d", "\uea13 New record", "Salva", "\U000F0001", " a \ue000 b ", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got := TypableName(s)
		if strings.ContainsFunc(got, isIconGlyph) {
			t.Fatalf("TypableName(%q) = %q keeps an icon glyph", s, got)
		}
		if again := TypableName(got); again != got {
			t.Fatalf("TypableName is not idempotent: %q -> %q -> %q", s, got, again)
		}
		if !strings.ContainsFunc(s, isIconGlyph) && got != s {
			t.Fatalf("TypableName(%q) = %q changed a name without glyphs", s, got)
		}
	})
}
