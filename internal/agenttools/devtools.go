package agenttools

import (
	"context"
	"errors"
	"fmt"
	"regexp"
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
	m     *toolmap.Mapper
	page  int
	uids  map[string]string // ref of the latest snapshot → uid
}

var (
	// list_pages' line of the selected page; a page of a browser context that is not the default one
	// (trapline's browser runs each run in its own) ends " isolatedContext=NAME" (McpResponse.js).
	dtSelected = regexp.MustCompile(`^(\d+): (.*) \[selected\](?: isolatedContext=\S+)?\s*$`)
)

func (d *devtoolsMCP) offers(k action.Kind) bool {
	if k == action.Select { // fill also chooses an option of a combobox
		k = action.Fill
	}
	return offersVia(d.m, k)
}

func (d *devtoolsMCP) selectedPage(ctx context.Context) (int, string, error) {
	c, err := callTool(ctx, d.cs, "list_pages", map[string]any{})
	if err != nil {
		return 0, "", err
	}
	if !c.failed() {
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
		if c.failed() {
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

// do makes the mapper's call for a on the selected page: the element by its uid.
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
	if a.Kind == action.Select { // fill also chooses an option of a combobox
		a.Kind = action.Fill
	}
	return mapCall(ctx, d.cs, d.m, request(a, n, toolmap.Element{UID: uid}, map[string]any{"pageId": page}))
}

// convertDevtools is toolmap.ConvertUIDLines (take_snapshot's uid lines as an aria snapshot).
func convertDevtools(answer string) (string, map[string]string, error) {
	return toolmap.ConvertUIDLines(answer)
}
