package agenttools

import (
	"slices"
	"strings"
	"testing"

	"github.com/trapline/trapline/agentkit/observe"
	"github.com/trapline/trapline/internal/agenttools/fakemcp"
)

func TestPlaywrightAnswerSections(t *testing.T) {
	sec := sections(fakemcp.Snapshot + "### Modal state\n- [\"confirm\" dialog with message \"Sicuro?\"]: can be handled by browser_handle_dialog\n")
	if m := pwPageURL.FindStringSubmatch(sec["Page"]); m == nil || m[1] != "http://portale.interno.test/pratiche/4" {
		t.Fatalf("page URL = %v", m)
	}
	raw, ok := yamlBlock(sec["Snapshot"])
	if !ok || !strings.HasPrefix(raw, "- generic [ref=e1]:") || strings.Contains(raw, "```") {
		t.Fatalf("yaml block = %q, %v", raw, ok)
	}
	if m := pwModal.FindStringSubmatch(sec["Modal state"]); m == nil || m[2] != "browser_handle_dialog" {
		t.Fatalf("modal = %v", m)
	}
	if _, ok := yamlBlock("- [Snapshot](.playwright-mcp/page.yml)"); ok {
		t.Fatal("a snapshot saved to a file is no inline snapshot")
	}
}

func TestConvertDevtoolsSnapshot(t *testing.T) {
	answer := "## Latest page snapshot\nuid=1_0 RootWebArea \"Pratica 4\" url=\"http://portale.interno.test/pratiche/4\"\n" +
		"  uid=1_1 heading \"Pratica 4\" level=\"1\"\n  uid=1_6 generic \"Azioni sull'account: pratica 15\"\n  uid=1_2 button \"Elimina pratica\"\n  uid=1_3 link \"Torna\" url=\"http://portale.interno.test/pratiche\"\n" +
		"    uid=1_4 StaticText \"Torna\nsu\"\n  uid=1_5 textbox \"Nome\" focusable focused\n"
	raw, uids, err := convertDevtools(answer)
	if err != nil {
		t.Fatal(err)
	}
	obs, err := observe.Parse("s1", "http://portale.interno.test/pratiche/4", raw)
	if err != nil || !obs.Complete {
		t.Fatalf("Parse(%q) = %v, complete %v, warnings %v", raw, err, obs != nil && obs.Complete, obs.Warnings)
	}
	n, err := obs.Find("button", "Elimina pratica")
	if err != nil || uids[n.RawRef] != "1_2" {
		t.Fatalf("button: %v, uid %q (raw %q)", err, uids[n.RawRef], raw)
	}
	l, err := obs.Find("link", "Torna")
	if err != nil || l.URL != "http://portale.interno.test/pratiche" {
		t.Fatalf("link: %+v %v", l, err)
	}
	if _, _, err := convertDevtools("## Latest page snapshot\nuid=1_0 RootWebArea \"x\"\n  garbage line\n"); err == nil {
		t.Fatal("a line that is no uid line must be an error, not dropped")
	}
}

func TestParseSelected(t *testing.T) {
	for answer, want := range map[string]string{
		"## Pages\n1: about:blank [selected]":                                                                      "about:blank",
		"## Pages\n1: about:blank [selected] isolatedContext=isolated-context-1":                                   "about:blank",
		"## Pages\n1: Pratica 4 - Portale (interno) (http://portale.interno.test/pratiche/4) [selected]\n2: x (y)": "http://portale.interno.test/pratiche/4",
	} {
		id, u, ok := parseSelected(answer)
		if !ok || id != 1 || u != want {
			t.Errorf("parseSelected(%q) = %d %q %v, want %q", answer, id, u, ok, want)
		}
	}
}

func TestNormalizeAgentBrowserSnapshot(t *testing.T) {
	raw := normalizeAB("- heading \"Pratica 4\" [level=1, ref=e1]\n- combobox \"Stato\" [expanded=false, ref=e2]: aperta\n  - option \"a, b\" [selected, ref=e6]\n- button \"Elimina pratica\" [ref=e3]\n- StaticText \"trapline proxy: denied: path \\\"/elimina\\\" it's\"\n- paragraph [ref=e9]: a: b")
	obs, err := observe.Parse("s1", "http://portale.interno.test/pratiche/4", raw)
	if err != nil || !obs.Complete {
		t.Fatalf("Parse(%q): %v %v", raw, err, obs.Warnings)
	}
	if n, err := obs.Find("button", "Elimina pratica"); err != nil || n.RawRef != "e3" {
		t.Fatalf("button: %+v %v", n, err)
	}
	if !slices.Contains(obs.TextLines(), `trapline proxy: denied: path "/elimina" it's`) {
		t.Fatalf("quoted text lost: %q\n%s", obs.TextLines(), raw)
	}
	if n, err := obs.Find("heading", "Pratica 4"); err != nil || n.Level != 1 || n.RawRef != "e1" {
		t.Fatalf("heading: %+v %v", n, err)
	}
}

// agent-browser prints "(empty page)" for a page with nothing in its accessibility tree: the page is
// read as empty (no nodes, complete), not as a snapshot that does not parse (a broken tool).
func TestAgentBrowserEmptyPageIsAnEmptySnapshot(t *testing.T) {
	for _, raw := range []string{"(empty page)", "(empty page)\n", "(no interactive elements)"} {
		obs, err := observe.Parse("s1", "http://portale.interno.test/export", normalizeAB(raw))
		if err != nil {
			t.Fatalf("Parse(normalizeAB(%q)): %v", raw, err)
		}
		if !obs.Complete || len(obs.Nodes) != 0 {
			t.Fatalf("Parse(normalizeAB(%q)): complete %v, %d nodes; want an empty, complete page", raw, obs.Complete, len(obs.Nodes))
		}
	}
	if got := normalizeAB("- paragraph: (empty page)"); got == "" {
		t.Fatal("a page whose text says (empty page) was read as empty")
	}
}
