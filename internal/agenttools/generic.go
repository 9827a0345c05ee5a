package agenttools

import (
	"context"
	"fmt"

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
	el.Role, el.Name = n.Role, n.EvidenceName() // the page's own name: the tool finds the element in the page by it
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

func (g *genericMCP) offers(k action.Kind) bool { return offersVia(g.m, k) }

func (g *genericMCP) observe(ctx context.Context) (string, string, []toolCall, error) {
	c, err := mapCall(ctx, g.cs, g.m, toolmap.Request{Capability: toolmap.Snapshot})
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
	c, err := mapCall(ctx, g.cs, g.m, request(a, n, g.els[n.RawRef], nil))
	if err == nil && a.Kind == action.Goto && !c.failed() {
		g.url = a.URL
	}
	return c, err
}
