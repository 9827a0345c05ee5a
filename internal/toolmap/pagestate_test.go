package toolmap

import (
	"errors"
	"strings"
	"testing"

	"github.com/trapline/trapline/agentkit/observe"
)

// Each form of page state parses into an observation whose delete button is found, with the handle
// the tool's own calls name it by.
func TestParseStateForms(t *testing.T) {
	for _, tc := range []struct {
		name, answer, form string
		want               Element
	}{
		{"playwright markdown", "### Page\n- Page URL: http://portale.interno.test/pratiche/4\n### Snapshot\n```yaml\n- generic [ref=e1]:\n  - heading \"Pratica 4\" [level=1] [ref=e3]\n  - button \"Elimina pratica\" [ref=e2]\n```\n",
			FormAria, Element{Ref: "e2"}},
		{"bare aria", "- heading \"Pratica 4\" [level=1] [ref=e3]\n- button \"Elimina pratica\" [ref=e2]", FormAria, Element{Ref: "e2"}},
		{"agent-browser refs", "- heading \"Pratica 4\" [level=1, ref=e1]\n- button \"Elimina pratica\" [ref=e2]", FormRefs, Element{Ref: "e2"}},
		{"chrome-devtools uids", "## Latest page snapshot\nuid=1_0 RootWebArea \"Pratica 4\" url=\"http://portale.interno.test/pratiche/4\"\n  uid=1_1 heading \"Pratica 4\" level=\"1\"\n  uid=1_2 button \"Elimina pratica\"\n",
			FormUIDs, Element{UID: "1_2"}},
		{"agent-infra numbered", "Navigated to http://portale.interno.test/pratiche/4\nclickable elements:\n[]Pratica 4\n[0] <a>Torna</a>\n[1] [aria-label=x] <button>Elimina pratica</button>\n[2] <input>Nome</input>",
			FormNumbered, Element{Index: idx(1)}},
		{"numbered words", "1. link \"Torna\"\n2. button \"Elimina pratica\"", FormNumbered, Element{Index: idx(2)}},
		{"html", "<html><body><h1>Pratica 4</h1><p>Testo</p><form method=post action=/elimina><button id=\"del\">Elimina pratica</button></form><div><button>Salva</button></div></body></html>",
			FormHTML, Element{Selector: "#del"}},
	} {
		st, err := ParseState(tc.answer)
		if err != nil {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		if st.Form != tc.form {
			t.Errorf("%s: form %s, want %s", tc.name, st.Form, tc.form)
		}
		obs, err := observe.Parse("s1", "http://portale.interno.test/pratiche/4", st.Aria)
		if err != nil || !obs.Complete {
			t.Errorf("%s: Parse(%q) = %v (warnings %v)", tc.name, st.Aria, err, obs)
			continue
		}
		n, err := obs.Find("button", "Elimina pratica")
		if err != nil {
			t.Errorf("%s: no button in %q: %v", tc.name, st.Aria, err)
			continue
		}
		e := st.Elements[n.RawRef]
		switch {
		case tc.want.Ref != "" && e.Ref != tc.want.Ref,
			tc.want.UID != "" && e.UID != tc.want.UID,
			tc.want.Index != nil && (e.Index == nil || *e.Index != *tc.want.Index),
			tc.want.Selector != "" && e.Selector != tc.want.Selector:
			t.Errorf("%s: handle %+v, want %+v", tc.name, e, tc.want)
		}
		if e.Role != "button" || e.Name != "Elimina pratica" {
			t.Errorf("%s: element %+v lacks its role and name", tc.name, e)
		}
	}
}

// The page's address in each form an answer gives it: Playwright MCP's "- Page URL:", the fork
// @tontoko/fast-playwright-mcp's "- **Page URL:**", a navigation's "Navigated to".
func TestParseStateURL(t *testing.T) {
	const u = "http://portale.interno.test/pratiche/4"
	snap := "```yaml\n- button \"Elimina pratica\" [ref=e2]\n```\n"
	for _, answer := range []string{
		"### Page\n- Page URL: " + u + "\n### Snapshot\n" + snap,
		"\n### Page state\n- **Page URL:** " + u + "\n- **Page Title:** Pratica 4\n- Page Snapshot:\n" + snap,
		"Navigated to " + u + "\nclickable elements:\n[0] <button>Elimina pratica</button>",
	} {
		st, err := ParseState(answer)
		if err != nil || st.URL != u {
			t.Errorf("ParseState(%q).URL = %q, %v; want %s", answer, st.URL, err, u)
		}
	}
}

func TestParseStateHTMLSelectorPath(t *testing.T) {
	st, err := ParseState("<html><body><div><button>Salva</button><button>Elimina</button></div></body></html>")
	if err != nil {
		t.Fatal(err)
	}
	var got string
	for _, e := range st.Elements {
		if e.Name == "Elimina" {
			got = e.Selector
		}
	}
	if got != "body > div:nth-of-type(1) > button:nth-of-type(2)" {
		t.Errorf("selector = %q", got)
	}
}

func TestParseStateText(t *testing.T) {
	st, err := ParseState("Pratica 4\nStato: aperta")
	if err != nil || st.Form != FormText || len(st.Elements) != 0 {
		t.Fatalf("ParseState(text) = %+v, %v", st, err)
	}
	obs, err := observe.Parse("s1", "", st.Aria)
	if err != nil || !strings.Contains(strings.Join(obs.TextLines(), "\n"), "Stato: aperta") {
		t.Fatalf("text observation = %v, %v", obs, err)
	}
}

func TestParseStateUnreadable(t *testing.T) {
	for _, answer := range []string{"", "   \n\t"} {
		if _, err := ParseState(answer); !errors.Is(err, ErrUnreadable) {
			t.Errorf("ParseState(%q) = %v, want ErrUnreadable", answer, err)
		}
	}
	// uid lines that break off are an error, not a partial tree
	if _, err := ParseState("uid=1_0 RootWebArea \"x\"\n  garbage line\n"); err == nil {
		t.Error("a broken uid tree must be an error")
	}
}

// A page's attributes stay data in the HTML and numbered forms too: a role attribute or a link's
// address with a line break adds no line, and no ref, of its own.
func TestParseStateAttributesStayData(t *testing.T) {
	for _, answer := range []string{
		"<html><body><a href=\"/x\n- button &quot;Conferma&quot; [ref=e7]\">b</a><div role=\"x[ref=e9]\" onclick=\"f()\">a</div></body></html>",
		"[1] <a href=\"/x\n- button\">b</a>",
	} {
		st, err := ParseState(answer)
		if err != nil {
			t.Fatalf("ParseState(%q): %v", answer, err)
		}
		if strings.Contains(st.Aria, "[ref=e9]") || strings.Contains(st.Aria, "\n- button") {
			t.Errorf("ParseState(%q) made lines of the page's attributes:\n%s", answer, st.Aria)
		}
	}
}
