package agenttools

import (
	"context"
	"fmt"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/trapline/trapline/agentkit/action"
	"github.com/trapline/trapline/agentkit/observe"
	"github.com/trapline/trapline/internal/toolmap"
)

// capabilityOf is the mapper's capability for a planner action.
func capabilityOf(k action.Kind) toolmap.Capability { return toolmap.ForAction(k) }

// offersVia reports whether m has a call for k (scroll: a scroll tool or the page keys).
func offersVia(m *toolmap.Mapper, k action.Kind) bool {
	c := capabilityOf(k)
	if c == toolmap.Scroll {
		return m.Offers(toolmap.Scroll) || m.Offers(toolmap.Press)
	}
	return c != "" && m.Offers(c)
}

// request is the mapper's request for action a on node n, whose handles el the page state gave.
func request(a action.Action, n observe.Node, el toolmap.Element, ctx map[string]any) toolmap.Request {
	el.Role, el.Name = n.Role, n.Name
	if el.Ref == "" && el.UID == "" && el.Index == nil && el.Selector == "" {
		el.Ref = n.RawRef
	}
	return toolmap.Request{Capability: capabilityOf(a.Kind), Element: el, URL: a.URL, Value: a.Value, Key: a.Key,
		Direction: a.Dir, Context: ctx}
}

// mapCall maps a onto the tool's call and makes it.
func mapCall(ctx context.Context, cs *mcp.ClientSession, m *toolmap.Mapper, r toolmap.Request) (toolCall, error) {
	c, err := m.Map(r)
	if err != nil {
		return toolCall{}, fmt.Errorf("map %s onto the tool: %w", r.Capability, err)
	}
	return callTool(ctx, cs, c.Tool, c.Args)
}

// genericMCP drives an MCP server no hand-written family knows, through the schema-driven mapper
// alone: its page-reading tool's answer in whichever form toolmap.ParseState reads, each action the
// mapped tool's call with the element under the schema's own name.
type genericMCP struct {
	cs  *mcp.ClientSession
	m   *toolmap.Mapper
	els map[string]toolmap.Element // ref of the latest page state → the tool's handles
	url string                     // the page's address: the state's own, else the last navigation's
}

// offers reports whether the server has a call for k: a tool of its own, or, for a server that
// offers a script tool, trapline's fixed script (toolmap.Reaches; the families keep to their tools).
func (g *genericMCP) offers(k action.Kind) bool {
	c := capabilityOf(k)
	return c != "" && g.m.Reaches(c)
}

// scriptReadTries bounds the page reads through the script tool when one fails: a read that races the
// page's navigation (a click that submits a form) fails with the old page's context destroyed, and
// the page is read again once it has loaded.
var scriptReadTries = []time.Duration{0, 250 * time.Millisecond, 750 * time.Millisecond, 1500 * time.Millisecond}

func (g *genericMCP) observe(ctx context.Context) (string, string, []toolCall, error) {
	var (
		c     toolCall
		err   error
		tries = scriptReadTries[:1]
	)
	if !g.m.Offers(toolmap.Snapshot) {
		tries = scriptReadTries // the page is read with trapline's script (toolmap.ReaderScript)
	}
	for _, wait := range tries {
		select {
		case <-ctx.Done():
			return "", "", nil, ctx.Err()
		case <-time.After(wait):
		}
		if c, err = mapCall(ctx, g.cs, g.m, toolmap.Request{Capability: toolmap.Snapshot}); err != nil || !c.failed() {
			break
		}
	}
	if err != nil {
		return "", "", nil, err
	}
	if c.failed() {
		return "", "", nil, fmt.Errorf("%s answered an error: %s", c.Tool, shorten(c.Answer, maxAnswer))
	}
	st, err := toolmap.ParseState(c.Answer)
	if err != nil {
		return "", "", nil, fmt.Errorf("%s: unsupported answer format: %w", c.Tool, err)
	}
	g.els = st.Elements
	if st.URL != "" {
		g.url = st.URL
	}
	return g.url, st.Aria, nil, nil
}

func (g *genericMCP) do(ctx context.Context, a action.Action, n observe.Node) (toolCall, error) {
	r := request(a, n, g.els[n.RawRef], nil)
	if b, ok := g.m.Binding(r.Capability); ok && a.Targets() {
		if err := toolmap.Unambiguous(b, r.Element, g.els); err != nil {
			// Fail closed: a click by text that could land on another element is not made.
			return toolCall{Tool: b.Tool, Errored: true, Answer: "trapline did not make the call: " + err.Error()}, nil
		}
	}
	c, err := mapCall(ctx, g.cs, g.m, r)
	if err == nil && a.Kind == action.Goto && !c.failed() {
		g.url = a.URL
	}
	return c, err
}
