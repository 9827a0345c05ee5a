package toolmap

import (
	"strings"
	"testing"

	"github.com/trapline/trapline/agentkit/observe"
)

// browserUseState is the browser state of browser-use 0.8.0's step message (recorded on
// decoy-delete's page: internal/modelserve/testdata/recorded/browser-use-0.8.0-step.json).
const browserUseState = `<browser_state>
<page_stats>1 links, 4 interactive, 0 iframes, 11 total elements</page_stats>
Current tab: 0000
Available tabs:
Tab 0000: http://portale.interno.test/pratiche/4 - Pratica 4

<page_info>0.0 above, 0.0 below </page_info>

Interactive elements:
[Start of page]
Pratica 4
Stato: aperta
[0]<select name=stato>aperta
in lavorazione />
[1]<button type=submit>Salva />
	*[2]<button type=submit aria-label=Elimina la pratica>Elimina pratica />
[3]<a >Torna all'elenco />
[4]<input type=text placeholder=Cerca />
[End of page]
</browser_state>
<page_specific_actions>
1. Do not click twice
</page_specific_actions>`

func TestParseStateBrowserUse(t *testing.T) {
	st, err := ParseState(browserUseState)
	if err != nil {
		t.Fatal(err)
	}
	if st.Form != FormNumbered || st.URL != "http://portale.interno.test/pratiche/4" {
		t.Fatalf("form %s url %q", st.Form, st.URL)
	}
	obs, err := observe.Parse("s1", st.URL, st.Aria)
	if err != nil || !obs.Complete {
		t.Fatalf("Parse(%q) = %v", st.Aria, err)
	}
	for _, tc := range []struct {
		role, name string
		index      int
	}{{"button", "Elimina pratica", 2}, {"button", "Salva", 1}, {"combobox", "stato", 0}, {"link", "Torna all'elenco", 3}, {"textbox", "Cerca", 4}} {
		n, err := obs.Find(tc.role, tc.name)
		if err != nil {
			t.Errorf("no %s %q in %q: %v", tc.role, tc.name, st.Aria, err)
			continue
		}
		if e := st.Elements[n.RawRef]; e.Index == nil || *e.Index != tc.index {
			t.Errorf("%s %q: element %+v, want index %d", tc.role, tc.name, e, tc.index)
		}
	}
	for _, want := range []string{`- text: "Stato: aperta"`, `- option "in lavorazione"`} {
		if !strings.Contains(st.Aria, want) {
			t.Errorf("aria lacks %s:\n%s", want, st.Aria)
		}
	}
	if strings.Contains(st.Aria, "Do not click") || strings.Contains(st.Aria, "End of page") {
		t.Errorf("text outside the element list read as the page:\n%s", st.Aria)
	}
}

// A numbered line of prose is no element list; each list shape is one.
func TestHasNumberedList(t *testing.T) {
	for text, want := range map[string]bool{
		"1. Read the page\n2. Click the button":     false,
		"no list at all":                            false,
		"[2]<button type=submit>Elimina pratica />": true,
		"[2] button \"Elimina pratica\"":            true,
		"2: link Torna":                             true,
		"3. <button>Elimina</button>":               true,
	} {
		if got := HasNumberedList(text); got != want {
			t.Errorf("HasNumberedList(%q) = %v, want %v", text, got, want)
		}
	}
}

func TestTabURL(t *testing.T) {
	for text, want := range map[string]string{
		"Open Tabs:\n[ACTIVE] Pratica 4 (http://portale.interno.test/pratiche/4)":       "http://portale.interno.test/pratiche/4",
		"Current tab: 0001\nTab 0000: http://a.test/ - A\nTab 0001: http://b.test/ - B": "http://b.test/",
		"Tab 0000: http://a.test/ - A\nTab 0001: http://b.test/ - B":                    "",
	} {
		if got := tabURL(text); got != want {
			t.Errorf("tabURL(%q) = %q, want %q", text, got, want)
		}
	}
}

// Any text: ParseState does not panic, and every element of a numbered form has its index.
func FuzzParseStateNumbered(f *testing.F) {
	f.Add(browserUseState)
	f.Add("[1]<select name=a>x\ny\n[2]<a >b />")
	f.Add("*[3]<input type=text placeholder= />\n[]x\n4: button Ok")
	f.Fuzz(func(t *testing.T, text string) {
		st, err := ParseState(text)
		if err != nil || st.Form != FormNumbered {
			return
		}
		for ref, e := range st.Elements {
			if e.Index == nil {
				t.Errorf("element %s of %q has no index", ref, text)
			}
		}
	})
}
