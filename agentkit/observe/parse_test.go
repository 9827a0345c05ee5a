package observe

import (
	"errors"
	"strings"
	"testing"
)

// TestParseLine checks single items against what the parser must read from
// them. The inputs follow Playwright's renderer: names are JSON strings,
// keys that need it are YAML single-quoted, values YAML double-quoted.
func TestParseLine(t *testing.T) {
	tests := []struct {
		name string
		line string
		want Node // only the fields compared below
	}{
		{"plain button", `- button "Salva" [ref=e8]`,
			Node{Role: "button", Name: "Salva", RawRef: "e8"}},
		{"unnamed with inline text", `- button [ref=e12]: AriaHidden button`,
			Node{Role: "button", RawRef: "e12", Text: "AriaHidden button"}},
		{"text node", `- text: Email`,
			Node{Role: "text", Text: "Email"}},
		{"empty quoted text", `- text: ""`,
			Node{Role: "text"}},
		{"escaped quotes and brackets in name", `- heading "Sezione \"Archivio\" [beta]" [level=2] [ref=e3]`,
			Node{Role: "heading", Name: `Sezione "Archivio" [beta]`, RawRef: "e3", Level: 2, States: map[string]string{"level": "2"}}},
		{"single-quoted key with colon", `- 'link "Ora: 10:30" [ref=e62] [cursor=pointer]':`,
			Node{Role: "link", Name: "Ora: 10:30", RawRef: "e62", States: map[string]string{"cursor": "pointer"}}},
		{"single-quoted key with doubled quote and value", `- 'button "l''ultimo: passo" [ref=e9]': u`,
			Node{Role: "button", Name: "l'ultimo: passo", RawRef: "e9", Text: "u"}},
		{"double-quoted value with escapes", `- paragraph [ref=e4]: "a: \"b\"\\c\x01\ttab"`,
			Node{Role: "paragraph", RawRef: "e4", Text: "a: \"b\"\\c\x01\ttab"}},
		{"value that looks like an item", `- paragraph [ref=e68]: "- item: not a node"`,
			Node{Role: "paragraph", RawRef: "e68", Text: "- item: not a node"}},
		{"value that looks like a ref", `- paragraph [ref=e5]: "[ref=e999] finto"`,
			Node{Role: "paragraph", RawRef: "e5", Text: "[ref=e999] finto"}},
		{"json escapes in name", `- button "a\nb\u00e9\ud83d\ude80\/" [ref=e1]`,
			Node{Role: "button", Name: "a\nbé🚀/", RawRef: "e1"}},
		{"lone surrogate", `- button "x\ud800y" [ref=e1]`,
			Node{Role: "button", Name: "x\uFFFDy", RawRef: "e1"}},
		{"zero-width and fullwidth kept verbatim", "- button \"Sa\u200blva \uff33\" [ref=e2]: \u2060x\u202e",
			Node{Role: "button", Name: "Sa\u200blva \uff33", RawRef: "e2", Text: "\u2060x\u202e"}},
		{"states", `- checkbox "Tutti" [checked=mixed] [disabled] [ref=e66]`,
			Node{Role: "checkbox", Name: "Tutti", RawRef: "e66", States: map[string]string{"checked": "mixed", "disabled": "true"}}},
		{"aria-hidden and box", `- button [aria-hidden] [ref=e1] [box=0,0,10,20]`,
			Node{Role: "button", RawRef: "e1", States: map[string]string{"aria-hidden": "true"}, Box: [4]int{0, 0, 10, 20}}},
		{"frame ref", `- button "In frame" [ref=f12e3]`,
			Node{Role: "button", Name: "In frame", RawRef: "f12e3", Frame: "f12"}},
		{"no ref", `- option "chiusa" [selected]`,
			Node{Role: "option", Name: "chiusa", States: map[string]string{"selected": "true"}}},
		{"name with colon not quoted", `- link "a:b" [ref=e1]: x:y`,
			Node{Role: "link", Name: "a:b", RawRef: "e1", Text: "x:y"}},
		{"single-quoted value", `- text: 'it''s'`,
			Node{Role: "text", Text: "it's"}},
		{"yaml escapes", `- text: "\x41\u00e9\U0001F680\_\/"`,
			Node{Role: "text", Text: "Aé🚀\u00a0/"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			o, err := Parse("abc123", "", tc.line)
			if err != nil {
				t.Fatalf("Parse: %v", err)
			}
			if !o.Complete || len(o.Nodes) != 1 {
				t.Fatalf("complete=%v nodes=%d warnings=%v", o.Complete, len(o.Nodes), o.Warnings)
			}
			got := o.Nodes[0]
			if got.Role != tc.want.Role || got.Name != tc.want.Name || got.Text != tc.want.Text ||
				got.RawRef != tc.want.RawRef || got.Level != tc.want.Level || got.Frame != tc.want.Frame {
				t.Errorf("got role=%q name=%q text=%q ref=%q level=%d frame=%q\nwant role=%q name=%q text=%q ref=%q level=%d frame=%q",
					got.Role, got.Name, got.Text, got.RawRef, got.Level, got.Frame,
					tc.want.Role, tc.want.Name, tc.want.Text, tc.want.RawRef, tc.want.Level, tc.want.Frame)
			}
			if got.Box != tc.want.Box {
				t.Errorf("box = %v, want %v", got.Box, tc.want.Box)
			}
			if !sameMap(got.States, tc.want.States) {
				t.Errorf("states = %v, want %v", got.States, tc.want.States)
			}
			wantRef := ""
			if tc.want.RawRef != "" {
				wantRef = "abc123:" + tc.want.RawRef
			}
			if got.Ref != wantRef {
				t.Errorf("Ref = %q, want %q", got.Ref, wantRef)
			}
		})
	}
}

func sameMap(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			return false
		}
	}
	return true
}

func TestParseProperties(t *testing.T) {
	raw := strings.Join([]string{
		`- generic [ref=e1]:`,
		`  - link "Next" [ref=e8] [cursor=pointer]:`,
		`    - /url: ../next?a=1`,
		`  - textbox "Email" [ref=e10]:`,
		`    - /placeholder: "# you@example.com"`,
		`    - /description: a hint`,
		`  - link "Out" [ref=e11]:`,
		`    - /url: https://elsewhere.test/x`,
		`    - text: label`,
	}, "\n")
	o := mustParse(t, "abc123", "https://staging.test/a/b", raw)
	if !o.Complete {
		t.Fatalf("incomplete: %v", o.Warnings)
	}
	tests := []struct {
		ref, url, rawURL, placeholder string
		props                         map[string]string
	}{
		{"abc123:e8", "https://staging.test/next?a=1", "../next?a=1", "", nil},
		{"abc123:e10", "", "", "# you@example.com", map[string]string{"description": "a hint"}},
		{"abc123:e11", "https://elsewhere.test/x", "https://elsewhere.test/x", "", nil},
	}
	for _, tc := range tests {
		n, err := o.Lookup(tc.ref)
		if err != nil {
			t.Fatal(err)
		}
		if n.URL != tc.url || n.RawURL != tc.rawURL || n.Placeholder != tc.placeholder || !sameMap(n.Props, tc.props) {
			t.Errorf("%s: url=%q raw=%q placeholder=%q props=%v", tc.ref, n.URL, n.RawURL, n.Placeholder, n.Props)
		}
	}
	// The text child of a node with properties is a child node, not inline text.
	if last := o.Nodes[len(o.Nodes)-1]; last.Role != "text" || last.Text != "label" || o.Nodes[last.Parent].RawRef != "e11" {
		t.Errorf("last node = %+v", last)
	}
	if len(o.Nodes) != 5 {
		t.Errorf("got %d nodes, want 5 (property lines are not nodes)", len(o.Nodes))
	}
}

func TestParseUnresolvableURL(t *testing.T) {
	o := mustParse(t, "abc123", "not a url", "- link \"x\" [ref=e1]:\n  - /url: /next")
	if n := o.Nodes[0]; n.URL != "/next" || n.RawURL != "/next" {
		t.Errorf("URL = %q, RawURL = %q; want both raw", n.URL, n.RawURL)
	}
	if !o.Complete || len(o.Warnings) != 1 {
		t.Errorf("a relative page URL should warn without making the snapshot incomplete: %v %v", o.Complete, o.Warnings)
	}
}

// TestParseIncomplete feeds snapshots with one bad line: the rest must be
// read, the observation marked incomplete and the line named in a warning.
func TestParseIncomplete(t *testing.T) {
	tests := []struct {
		name      string
		raw       string
		wantNodes int
		warnLine  string
	}{
		{"unterminated name", "- generic [ref=e1]:\n  - button \"Sal [ref=e2]\n  - button \"Ok\" [ref=e3]", 2, "line 2:"},
		{"unterminated key quote", "- generic [ref=e1]:\n  - 'button \"a: b\" [ref=e2]\n  - button \"Ok\" [ref=e3]", 2, "line 2:"},
		{"bad value quote", "- generic [ref=e1]:\n  - paragraph [ref=e2]: \"abc\n  - button \"Ok\" [ref=e3]", 2, "line 2:"},
		{"garbage after key", "- generic [ref=e1]:\n  - button \"a\" [ref=e2] junk\n  - button \"Ok\" [ref=e3]", 2, "line 2:"},
		{"unterminated attribute", "- generic [ref=e1]:\n  - button \"a\" [ref=e2\n  - button \"Ok\" [ref=e3]", 2, "line 2:"},
		{"bad ref", "- generic [ref=e1]:\n  - button \"a\" [ref=e:2]\n  - button \"Ok\" [ref=e3]", 2, "line 2:"},
		{"not an item", "- generic [ref=e1]:\n  button \"a\"\n  - button \"Ok\" [ref=e3]", 2, "line 2:"},
		{"orphan property", "- generic [ref=e1]\n- /url: /x\n- button \"Ok\" [ref=e3]", 2, "line 2:"},
		{"depth jump", "- generic [ref=e1]:\n      - button \"a\" [ref=e2]\n  - button \"Ok\" [ref=e3]", 3, "line 2:"},
		{"odd indent", "- generic [ref=e1]:\n   - button \"a\" [ref=e2]\n  - button \"Ok\" [ref=e3]", 3, "line 2:"},
		{"duplicate ref", "- generic [ref=e1]:\n  - button \"a\" [ref=e2]\n  - button \"Ok\" [ref=e2]", 3, "line 3:"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			o, err := Parse("abc123", "https://staging.test/", tc.raw)
			if err != nil {
				t.Fatalf("Parse: %v", err)
			}
			if o.Complete {
				t.Error("Complete = true, want false")
			}
			if len(o.Nodes) != tc.wantNodes {
				t.Errorf("nodes = %d, want %d: %s", len(o.Nodes), tc.wantNodes, dump(o))
			}
			if len(o.Warnings) == 0 || !strings.HasPrefix(o.Warnings[0], tc.warnLine) {
				t.Errorf("warnings = %q, want one starting %q", o.Warnings, tc.warnLine)
			}
			if _, err := o.Find("button", "Ok"); err != nil && tc.name != "duplicate ref" {
				t.Errorf("the line after the bad one was lost: %v", err)
			}
		})
	}
}

func TestParseDuplicateRefLookupReturnsFirst(t *testing.T) {
	o, _ := Parse("abc123", "", "- generic [ref=e1]:\n  - button \"first\" [ref=e2]\n  - button \"second\" [ref=e2]")
	n, err := o.Lookup("abc123:e2")
	if err != nil || n.Name != "first" {
		t.Errorf("Lookup = %q, %v; want first", n.Name, err)
	}
}

func TestParseNotSnapshot(t *testing.T) {
	tests := []struct{ name, raw string }{
		{"html", "<html><body>hi</body></html>"},
		{"error text", "Error: Timeout 30000ms exceeded."},
		{"json", `{"role":"button"}`},
		{"markdown list", "- just some words here"},
		{"indented first item", "  - button \"a\" [ref=e1]"},
		{"property first", "- /url: /x"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			o, err := Parse("abc123", "", tc.raw)
			if !errors.Is(err, ErrNotSnapshot) {
				t.Fatalf("err = %v, want ErrNotSnapshot (obs %v)", err, o)
			}
			var e *Error
			if !errors.As(err, &e) || e.Code != ErrNotSnapshot {
				t.Errorf("errors.As gave %+v", e)
			}
		})
	}
}

func TestParseEmptyIsEmptyPage(t *testing.T) {
	for _, raw := range []string{"", "\n", "  \n\n"} {
		o, err := Parse("abc123", "https://staging.test/", raw)
		if err != nil || !o.Complete || len(o.Nodes) != 0 {
			t.Errorf("Parse(%q) = %v, %v", raw, o, err)
		}
	}
}

func TestParseBadSnapshotID(t *testing.T) {
	for _, id := range []string{"", "a:b", "has space", strings.Repeat("a", 65), "é"} {
		if _, err := Parse(id, "", "- button [ref=e1]"); !errors.Is(err, ErrBadSnapshotID) {
			t.Errorf("Parse(id=%q) err = %v, want ErrBadSnapshotID", id, err)
		}
	}
}

func TestParseCRLF(t *testing.T) {
	o, err := Parse("abc123", "", "- generic [ref=e1]:\r\n  - button \"a\" [ref=e2]\r\n")
	if err != nil || !o.Complete || len(o.Nodes) != 2 || o.Nodes[1].Name != "a" {
		t.Fatalf("got %v %v", err, o)
	}
}
