package agenttools

import (
	"context"
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
	"github.com/trapline/trapline/internal/toolmap"
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

// convertDevtools is toolmap.ConvertUIDLines (take_snapshot's uid lines as an aria snapshot).
func convertDevtools(answer string) (string, map[string]string, error) {
	return toolmap.ConvertUIDLines(answer)
}
