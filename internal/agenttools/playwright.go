package agenttools

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/trapline/trapline/agentkit/action"
	"github.com/trapline/trapline/agentkit/observe"
	"github.com/trapline/trapline/harness"
	"github.com/trapline/trapline/internal/toolmap"
)

// playwrightMCP adapts @playwright/mcp: browser_snapshot answers markdown sections ("### Page" with
// "- Page URL: ...", "### Snapshot" with a ```yaml block in Playwright's AI-mode aria format, the format
// agentkit/observe parses), "### Modal state" lists the dialogs and file choosers the tool offers to
// clear with browser_handle_dialog and browser_file_upload.
type playwrightMCP struct {
	cs    *mcp.ClientSession
	tools []string
	m     *toolmap.Mapper
	env   harness.Env
	els   map[string]toolmap.Element // ref of the latest snapshot → the handles the calls take
}

var (
	pwPageURL = regexp.MustCompile(`(?m)^- Page URL: (.*)$`)
	pwModal   = regexp.MustCompile(`(?m)^- \[(.*)\]: can be handled by (\S+)`)
)

// errNoSnapshot says an answer of browser_snapshot has no inline snapshot.
var errNoSnapshot = errors.New("the answer has no ### Snapshot section with a yaml block")

func (p *playwrightMCP) offers(k action.Kind) bool { return offersVia(p.m, k) }

func (p *playwrightMCP) observe(ctx context.Context) (string, string, []toolCall, error) {
	var calls []toolCall
	for range 4 { // clear at most three modal states in a row, then read the page
		c, err := callTool(ctx, p.cs, "browser_snapshot", map[string]any{})
		if err != nil {
			return "", "", calls, err
		}
		sec := sections(c.Answer)
		if m := pwModal.FindStringSubmatch(sec["Modal state"]); m != nil {
			clear, err := p.clearModal(ctx, m[1], m[2])
			if err != nil {
				return "", "", calls, err
			}
			calls = append(calls, clear)
			continue
		}
		if c.failed() {
			return "", "", calls, fmt.Errorf("browser_snapshot refused: %s", shorten(c.Answer, maxAnswer))
		}
		// Playwright MCP's own answer is a ```yaml block; a fork's may be another form ParseState reads.
		st, err := toolmap.ParseState(c.Answer)
		if err != nil {
			return "", "", calls, fmt.Errorf("browser_snapshot: unsupported answer format: %w: %w: %s", errNoSnapshot, err, shorten(c.Answer, maxAnswer))
		}
		raw := st.Aria
		p.els = st.Elements
		pageURL := st.URL // a fork's "### Page state" with "- **Page URL:** ..." too
		if m := pwPageURL.FindStringSubmatch(sec["Page"]); m != nil {
			pageURL = strings.TrimSpace(m[1])
		}
		return pageURL, raw, calls, nil
	}
	return "", "", calls, errors.New("browser_snapshot: a modal state is still open after three answers")
}

// clearModal answers a modal state the way the worst-case model does: it accepts every dialog and
// attaches a file to every file chooser.
func (p *playwrightMCP) clearModal(ctx context.Context, desc, tool string) (toolCall, error) {
	why := "the tool offered to clear [" + desc + "]: the worst-case model accepts"
	switch tool {
	case "browser_handle_dialog":
		c, err := callTool(ctx, p.cs, tool, map[string]any{"accept": true, "promptText": "prova"})
		c.Why = why
		return c, err
	case "browser_file_upload":
		f, err := filepath.Abs(filepath.Join(p.env.ArtifactsDir, "upload-prova.txt")) // not the workspace root's relative
		if err != nil {
			return toolCall{}, fmt.Errorf("the file to upload: %w", err)
		}
		if err := os.WriteFile(f, []byte("prova\n"), 0o644); err != nil {
			return toolCall{}, fmt.Errorf("write the file to upload: %w", err)
		}
		c, err := callTool(ctx, p.cs, tool, map[string]any{"paths": []string{f}})
		c.Why = why
		return c, err
	}
	return toolCall{}, fmt.Errorf("browser_snapshot: modal state [%s] is cleared by %s, which the adapter does not know", desc, tool)
}

// do makes the mapper's call for a: the element under the name the server's schema gives it
// (Playwright MCP 0.0.83's target and element; a fork's ref).
func (p *playwrightMCP) do(ctx context.Context, a action.Action, n observe.Node) (toolCall, error) {
	return mapCall(ctx, p.cs, p.m, request(a, n, p.els[n.RawRef], nil))
}

// sections splits a markdown answer into its "### Title" sections.
func sections(s string) map[string]string {
	out := map[string]string{}
	title := ""
	var b strings.Builder
	flush := func() {
		if title != "" {
			out[title] = b.String()
		}
		b.Reset()
	}
	for _, line := range strings.Split(s, "\n") {
		if t, ok := strings.CutPrefix(line, "### "); ok {
			flush()
			title = strings.TrimSpace(t)
			continue
		}
		b.WriteString(line)
		b.WriteString("\n")
	}
	flush()
	return out
}

// yamlBlock returns the content of the first ```yaml fenced block.
func yamlBlock(s string) (string, bool) {
	_, rest, ok := strings.Cut(s, "```yaml\n")
	if !ok {
		return "", false
	}
	body, _, ok := strings.Cut(rest, "```")
	return strings.TrimRight(body, "\n"), ok
}
