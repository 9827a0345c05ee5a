package observe

import (
	"errors"
	"strings"
	"testing"
)

func TestCompactCap(t *testing.T) {
	o := parseSample(t, "kitchen", "s3f9k2")
	full, err := o.Compact(CompactOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !full.Complete || full.Kept != full.Total || full.Total != 42 {
		t.Fatalf("uncapped: kept %d total %d complete %v", full.Kept, full.Total, full.Complete)
	}
	tests := []struct {
		max          int
		wantKept     int
		wantComplete bool
		wantLast     string
	}{
		{0, 42, true, `s3f9k2:f1e4 link "Link frame" -> /framelink`},
		{42, 42, true, `s3f9k2:f1e4 link "Link frame" -> /framelink`},
		{100, 42, true, `s3f9k2:f1e4 link "Link frame" -> /framelink`},
		{41, 41, false, "… 1 more elements not shown (truncated)"},
		{5, 5, false, "… 37 more elements not shown (truncated)"},
		{1, 1, false, "… 41 more elements not shown (truncated)"},
	}
	for _, tc := range tests {
		c, err := o.Compact(CompactOptions{MaxElements: tc.max})
		if err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(strings.TrimSuffix(c.Text, "\n"), "\n")
		if c.Kept != tc.wantKept || c.Total != 42 || c.Complete != tc.wantComplete {
			t.Errorf("max %d: kept %d total %d complete %v", tc.max, c.Kept, c.Total, c.Complete)
		}
		if got := lines[len(lines)-1]; got != tc.wantLast {
			t.Errorf("max %d: last line %q, want %q", tc.max, got, tc.wantLast)
		}
		refLines := 0
		for _, l := range lines {
			if strings.HasPrefix(l, "s3f9k2:") {
				refLines++
			}
		}
		if refLines != tc.wantKept {
			t.Errorf("max %d: %d element lines, Kept says %d", tc.max, refLines, tc.wantKept)
		}
	}
}

func TestCompactCapCountsHiddenText(t *testing.T) {
	o := parseSample(t, "kitchen", "s3f9k2")
	c, err := o.Compact(CompactOptions{MaxElements: 3, IncludeText: true})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasSuffix(c.Text, "… 39 more elements and 9 text lines not shown (truncated)\n") {
		t.Errorf("text:\n%s", c.Text)
	}
}

func TestCompactRegion(t *testing.T) {
	o := parseSample(t, "kitchen", "s3f9k2")
	c, err := o.Compact(CompactOptions{Region: "s3f9k2:e26"}) // the table
	if err != nil {
		t.Fatal(err)
	}
	want := `s3f9k2:e27 caption: "Pratiche"
s3f9k2:e30 columnheader "ID"
s3f9k2:e31 columnheader "Titolo"
s3f9k2:e32 columnheader "Azione"
s3f9k2:e35 cell "101"
s3f9k2:e36 cell "Rinnovo"
s3f9k2:e38 link "Apri 101" -> /p/101
s3f9k2:e40 cell "102"
s3f9k2:e41 cell "Voltura"
s3f9k2:e43 link "Apri 102" -> /p/102
`
	if c.Text != want || c.Total != 10 || !c.Complete {
		t.Errorf("region view (total %d complete %v):\n%s", c.Total, c.Complete, c.Text)
	}
	leaf, err := o.Compact(CompactOptions{Region: "s3f9k2:e7"})
	if err != nil || leaf.Text != "s3f9k2:e7 button \"Salva\"\n" {
		t.Errorf("leaf region = %q, %v", leaf.Text, err)
	}
	for qref, code := range map[string]Code{"e26": ErrBareRef, "old000:e26": ErrStaleRef, "s3f9k2:e999": ErrUnknownRef} {
		if _, err := o.Compact(CompactOptions{Region: qref}); !errors.Is(err, code) {
			t.Errorf("Region %q: err %v, want %s", qref, err, code)
		}
	}
}

func TestCompactText(t *testing.T) {
	raw := "- generic [ref=e1]:\n  - paragraph [ref=e2]: \"abcdefghij\\nkl\"\n  - text: \"x\\ty \\\"q\\\"\"\n  - button [ref=e3]"
	o := mustParse(t, "abc123", "", raw)
	tests := []struct {
		opts CompactOptions
		want string
	}{
		{CompactOptions{}, "abc123:e2 paragraph: \"abcdefghij\\nkl\"\nabc123:e3 button\n"},
		{CompactOptions{IncludeText: true}, "abc123:e2 paragraph: \"abcdefghij\\nkl\"\n  text: \"x\\ty \\\"q\\\"\"\nabc123:e3 button\n"},
		{CompactOptions{MaxTextRunes: 4}, "abc123:e2 paragraph: \"abcd\"…(+9 runes)\nabc123:e3 button\n"},
	}
	for _, tc := range tests {
		c, err := o.Compact(tc.opts)
		if err != nil {
			t.Fatal(err)
		}
		if c.Text != tc.want {
			t.Errorf("%+v:\ngot  %q\nwant %q", tc.opts, c.Text, tc.want)
		}
	}
}

func TestCompactIncompleteObservation(t *testing.T) {
	o := mustParse(t, "abc123", "", "- generic [ref=e1]:\n  - button \"broken [ref=e2]\n  - button \"ok\" [ref=e3]")
	c, err := o.Compact(CompactOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if c.Complete || c.Kept != 1 || !strings.Contains(c.Text, "! snapshot incomplete: 1 problems") {
		t.Errorf("complete %v kept %d text:\n%s", c.Complete, c.Kept, c.Text)
	}
}

func TestCompactKeepsUnicodeVerbatim(t *testing.T) {
	o := mustParse(t, "abc123", "", "- button \"Sa\u200blva\" [ref=e1]: \u202eevil")
	c, _ := o.Compact(CompactOptions{})
	if c.Text != "abc123:e1 button \"Sa\u200blva\": \"\u202eevil\"\n" {
		t.Errorf("got %q", c.Text)
	}
}

func TestRelativeToKeepsOtherHostsWhole(t *testing.T) {
	for _, tc := range []struct{ origin, u, want string }{
		{"http://portale.interno.test", "http://portale.interno.test/pratiche/4", "/pratiche/4"},
		{"http://portale.interno.test", "http://portale.interno.test", "/"},
		{"http://portale.interno.test", "http://portale.interno.test.evil.example/x", "http://portale.interno.test.evil.example/x"},
		{"http://portale.interno.test", "http://portale.interno.test:8080/x", "http://portale.interno.test:8080/x"},
		{"http://portale.interno.test", "https://portale.interno.test/x", "https://portale.interno.test/x"},
		{"http://portale.interno.test", "http://evil.example.test/guida", "http://evil.example.test/guida"},
		{"", "http://evil.example.test/guida", "http://evil.example.test/guida"},
	} {
		if got := relativeTo(tc.origin, tc.u); got != tc.want {
			t.Errorf("relativeTo(%q, %q) = %q, want %q", tc.origin, tc.u, got, tc.want)
		}
	}
}
