package agenttools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/trapline/trapline/agentkit/action"
	"github.com/trapline/trapline/agentkit/observe"
	"github.com/trapline/trapline/harness"
)

// devtoolsMCP adapts chrome-devtools-mcp: list_pages names the selected page ("1: URL [selected]"),
// take_snapshot answers "uid=1_2 button \"Elimina\" url=\"...\"" lines, indented two spaces a level,
// which the adapter rewrites into Playwright's AI-mode aria format (uids become refs e1, e2, ...) so
// agentkit/observe reads them like any other snapshot. An open dialog ("# Open dialog") is answered
// with handle_dialog, accepted, as the worst-case model does.
type devtoolsMCP struct {
	cs    *mcp.ClientSession
	tools []string
	env   harness.Env
	page  int
	uids  map[string]string // ref of the latest snapshot → uid
}

var (
	dtSelected = regexp.MustCompile(`^(\d+): (.*) \[selected\]\s*$`)
	dtLine     = regexp.MustCompile(`(?s)^( *)uid=(\S+) (\S+)(.*)$`)
	dtName     = regexp.MustCompile(`^ "((?:[^"\\]|\\.)*)"`)
	dtAttr     = regexp.MustCompile(`^ ([a-zA-Z-]+)(?:="((?:[^"\\]|\\.)*)")?`)
)

func (d *devtoolsMCP) offers(k action.Kind) bool {
	switch k {
	case action.Goto, action.Click, action.Read:
		return true
	case action.Fill, action.Select: // fill also chooses an option of a combobox
		return slices.Contains(d.tools, "fill")
	case action.Press, action.Scroll:
		return slices.Contains(d.tools, "press_key")
	}
	return false
}

func (d *devtoolsMCP) selectedPage(ctx context.Context) (int, string, error) {
	c, err := callTool(ctx, d.cs, "list_pages", map[string]any{})
	if err != nil {
		return 0, "", err
	}
	if !c.Refused {
		if id, pageURL, ok := parseSelected(c.Answer); ok {
			return id, pageURL, nil
		}
	}
	return 0, "", fmt.Errorf("list_pages: no selected page in %q", shorten(c.Answer, maxAnswer))
}

// parseSelected reads list_pages' selected line: "1: about:blank [selected]" or, for a page with a
// title, "1: Pratica 4 - Portale interno (http://portale.interno.test/pratiche/4) [selected]".
func parseSelected(answer string) (int, string, bool) {
	for _, line := range strings.Split(answer, "\n") {
		m := dtSelected.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		id, err := strconv.Atoi(m[1])
		if err != nil {
			return 0, "", false
		}
		rest := m[2]
		if strings.HasSuffix(rest, ")") {
			if i := strings.LastIndex(rest, " ("); i >= 0 {
				rest = rest[i+2 : len(rest)-1]
			} else if strings.HasPrefix(rest, "(") {
				rest = rest[1 : len(rest)-1]
			}
		}
		return id, rest, true
	}
	return 0, "", false
}

func (d *devtoolsMCP) observe(ctx context.Context) (string, string, []toolCall, error) {
	var calls []toolCall
	for range 4 {
		page, pageURL, err := d.selectedPage(ctx)
		if err != nil {
			return "", "", calls, err
		}
		d.page = page
		c, err := callTool(ctx, d.cs, "take_snapshot", map[string]any{"pageId": page})
		if err != nil {
			return "", "", calls, err
		}
		if strings.Contains(c.Answer, "# Open dialog") {
			h, err := callTool(ctx, d.cs, "handle_dialog", map[string]any{"pageId": page, "action": "accept", "promptText": "prova"})
			if err != nil {
				return "", "", calls, err
			}
			h.Why = "the tool offered to handle an open dialog: the worst-case model accepts"
			calls = append(calls, h)
			continue
		}
		if c.Refused {
			return "", "", calls, fmt.Errorf("take_snapshot refused: %s", shorten(c.Answer, maxAnswer))
		}
		raw, uids, err := convertDevtools(c.Answer)
		if err != nil {
			return "", "", calls, err
		}
		d.uids = uids
		return pageURL, raw, calls, nil
	}
	return "", "", calls, errors.New("take_snapshot: a dialog is still open after three answers")
}

func (d *devtoolsMCP) do(ctx context.Context, a action.Action, n observe.Node) (toolCall, error) {
	uid := d.uids[n.RawRef]
	if a.Targets() && uid == "" {
		return toolCall{}, fmt.Errorf("ref %s has no uid in the latest snapshot", n.RawRef)
	}
	page := d.page
	if page == 0 {
		var err error
		if page, _, err = d.selectedPage(ctx); err != nil {
			return toolCall{}, err
		}
	}
	switch a.Kind {
	case action.Goto:
		return callTool(ctx, d.cs, "navigate_page", map[string]any{"pageId": page, "type": "url", "url": a.URL})
	case action.Click:
		return callTool(ctx, d.cs, "click", map[string]any{"pageId": page, "uid": uid})
	case action.Fill, action.Select:
		return callTool(ctx, d.cs, "fill", map[string]any{"pageId": page, "uid": uid, "value": a.Value})
	case action.Press:
		return callTool(ctx, d.cs, "press_key", map[string]any{"pageId": page, "key": a.Key})
	case action.Scroll:
		key := "PageDown"
		if a.Dir == "up" {
			key = "PageUp"
		}
		return callTool(ctx, d.cs, "press_key", map[string]any{"pageId": page, "key": key})
	case action.Read:
		return callTool(ctx, d.cs, "take_snapshot", map[string]any{"pageId": page})
	}
	return toolCall{}, fmt.Errorf("the adapter has no call for %s", a.Kind)
}

// convertDevtools rewrites a take_snapshot answer into Playwright's AI-mode aria snapshot and returns
// the map from the refs it gave to the tool's uids. A line it cannot read is an error: the page would
// otherwise be judged on a partial tree.
func convertDevtools(answer string) (string, map[string]string, error) {
	var b strings.Builder
	uids := map[string]string{}
	seen := false
	for i, line := range joinContinued(strings.Split(answer, "\n")) {
		if strings.TrimSpace(line) == "" || strings.HasPrefix(line, "#") {
			continue
		}
		m := dtLine.FindStringSubmatch(line)
		if m == nil {
			if !seen {
				continue // prose before the tree
			}
			return "", nil, fmt.Errorf("take_snapshot: line %d is no uid line: %q", i+1, shorten(line, 120))
		}
		seen = true
		depth := len(m[1]) / 2
		indent := strings.Repeat("  ", depth)
		role, rest := m[3], m[4]
		name := ""
		if nm := dtName.FindStringSubmatch(rest); nm != nil {
			name, rest = nm[1], rest[len(nm[0]):]
		}
		attrs := map[string]string{}
		for {
			am := dtAttr.FindStringSubmatch(rest)
			if am == nil {
				break
			}
			attrs[am[1]], rest = am[2], rest[len(am[0]):]
		}
		switch role {
		case "StaticText":
			fmt.Fprintf(&b, "%s- text: %s\n", indent, jsonString(name))
			continue
		case "InlineTextBox", "LineBreak":
			continue
		case "RootWebArea", "none", "generic":
			role = "generic"
		}
		ref := "e" + strconv.Itoa(len(uids)+1)
		uids[ref] = m[2]
		fmt.Fprintf(&b, "%s- %s", indent, strings.ToLower(role))
		if name != "" {
			b.WriteString(" " + jsonString(name))
		}
		if lv := attrs["level"]; lv != "" {
			fmt.Fprintf(&b, " [level=%s]", lv)
		}
		for _, flag := range []string{"checked", "disabled", "expanded", "selected"} {
			if _, ok := attrs[flag]; ok {
				fmt.Fprintf(&b, " [%s]", flag)
			}
		}
		fmt.Fprintf(&b, " [ref=%s]\n", ref)
		if u := attrs["url"]; u != "" && role != "generic" {
			fmt.Fprintf(&b, "%s  - /url: %s\n", indent, u)
		}
	}
	if !seen {
		return "", nil, fmt.Errorf("take_snapshot: no uid lines in %q", shorten(answer, maxAnswer))
	}
	// Keys whose name holds a colon or a quote are single-quoted, as Playwright writes them.
	return normalizeAB(strings.TrimRight(b.String(), "\n")), uids, nil
}

// joinContinued joins a uid line whose quoted value runs on over the next lines (a name with a line
// break: the tool prints it raw) with those lines, so the parser sees one item per node. A line is a
// continuation only while the line before has an open quote; anything else stays its own line.
func joinContinued(lines []string) []string {
	var out []string
	open := false
	for _, l := range lines {
		if open && len(out) > 0 {
			out[len(out)-1] += "\n" + l
		} else {
			out = append(out, l)
		}
		if open || dtLine.MatchString(l) {
			open = (strings.Count(out[len(out)-1], `"`)-strings.Count(out[len(out)-1], `\"`))%2 == 1
		}
	}
	return out
}

func jsonString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}
