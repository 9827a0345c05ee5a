package agenttools

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/trapline/trapline/agentkit/action"
	"github.com/trapline/trapline/agentkit/observe"
	"github.com/trapline/trapline/harness"
	"github.com/trapline/trapline/internal/agenttools/worldpage"
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
// mapped tool's call with the element under the schema's own name. A server whose calls name the
// element by CSS selector or visible text (or act through a script tool) has its page read from the
// run's own browser when the tool drives it (world): the ground truth, whatever the tool's own
// reading shows; the tool's reader, or trapline's script through its script tool, is the fallback.
type genericMCP struct {
	cs    *mcp.ClientSession
	m     *toolmap.Mapper
	world *worldReader               // nil without the run's browser
	els   map[string]toolmap.Element // ref of the latest page state → the tool's handles
	url   string                     // the page's address: the state's own, else the last navigation's
	from  string                     // where the latest page state was read (pageFrom)
}

func (g *genericMCP) pageFrom() string { return g.from }

// offers reports whether the server has a call for k: a tool of its own, or, for a server that
// offers a script tool, trapline's fixed script (toolmap.Reaches; the families keep to their tools).
func (g *genericMCP) offers(k action.Kind) bool {
	c := capabilityOf(k)
	return c != "" && g.m.Reaches(c)
}

// readTries bounds the page reads through a script (the tool's script tool, the run's browser) when
// one fails: a read that races the page's navigation (a click that submits a form) fails with the
// old page's context destroyed, and the page is read again once it has loaded.
var readTries = []time.Duration{0, 250 * time.Millisecond, 750 * time.Millisecond, 1500 * time.Millisecond}

// retryRead runs read until it succeeds, fails with errNoWorldPage (no page to read again), or the
// tries (waits before each) are spent.
func retryRead[T any](ctx context.Context, tries []time.Duration, read func() (T, error)) (T, error) {
	var (
		v   T
		err error
	)
	for _, wait := range tries {
		select {
		case <-ctx.Done():
			return v, ctx.Err()
		case <-time.After(wait):
		}
		if v, err = read(); err == nil || errors.Is(err, errNoWorldPage) {
			return v, err
		}
	}
	return v, err
}

func (g *genericMCP) observe(ctx context.Context) (string, string, []toolCall, error) {
	st, err := g.read(ctx)
	if err != nil {
		return "", "", nil, err
	}
	g.els = st.Elements
	if st.URL != "" {
		g.url = st.URL
	}
	return g.url, st.Aria, nil, nil
}

// read is the page state: from the run's browser when it holds the tool's page and the calls can use
// what it gives (a selector, a text), else the tool's own reading.
func (g *genericMCP) read(ctx context.Context) (*toolmap.State, error) {
	var worldErr error
	if g.world != nil && g.groundable() {
		st, err := retryRead(ctx, readTries, func() (*toolmap.State, error) { return g.world.read(ctx, g.url) })
		if err == nil {
			g.from = "the run's browser (" + harness.EnvCDPURL + "), trapline's page reader"
			return st, nil
		}
		worldErr = err
	}
	if !g.m.Reaches(toolmap.Snapshot) {
		if worldErr == nil {
			b, _ := g.m.Binding(toolmap.Click)
			worldErr = fmt.Errorf("its click names the element by %s, which only the tool's own listing gives", b.ElementKind)
		}
		return nil, fmt.Errorf("no page to read: the server offers no tool to read the page and no script tool, and the run's browser (%s) does not show the tool's page: %w", harness.EnvCDPURL, worldErr)
	}
	tries := readTries[:1]
	if !g.m.Offers(toolmap.Snapshot) {
		tries = readTries // the page is read with trapline's script (toolmap.ReaderScript)
	}
	c, err := retryRead(ctx, tries, func() (toolCall, error) {
		c, err := mapCall(ctx, g.cs, g.m, toolmap.Request{Capability: toolmap.Snapshot})
		if err == nil && c.failed() {
			return c, fmt.Errorf("%s answered an error: %s", c.Tool, shorten(c.Answer, maxAnswer))
		}
		return c, err
	})
	if err != nil {
		return nil, err
	}
	st, err := toolmap.ParseState(c.Answer)
	if err != nil {
		return nil, fmt.Errorf("%s: unsupported answer format: %w", c.Tool, err)
	}
	g.from = c.Tool
	if !g.m.Offers(toolmap.Snapshot) {
		g.from += " running trapline's page reader"
	}
	return st, nil
}

// groundable reports whether the server's click can take what the run's browser gives: a CSS
// selector, the element's visible text, or trapline's script (no click tool of its own). A ref, uid or
// index exists only in the tool's own listing.
func (g *genericMCP) groundable() bool {
	b, ok := g.m.Binding(toolmap.Click)
	return !ok || b.ElementKind == toolmap.KindSelector || b.ElementKind == toolmap.KindText
}

// errNoWorldPage says the run's browser shows no page the tool drives: the tool drives a browser of
// its own, or several pages the last address does not tell apart.
var errNoWorldPage = errors.New("no page of the tool's in the run's browser")

// worldReader reads the tool's page from the run's own browser over DevTools.
type worldReader struct{ cdpURL string }

// read returns the state of the one page of the run's browser that shows the world (several: the one
// at want, the tool's last address), read with trapline's fixed script.
func (w *worldReader) read(ctx context.Context, want string) (*toolmap.State, error) {
	pages, err := worldpage.Pages(ctx, w.cdpURL)
	if err != nil {
		return nil, err
	}
	pages = slices.DeleteFunc(pages, worldpage.Page.Blank)
	if len(pages) > 1 {
		pages = slices.DeleteFunc(pages, func(p worldpage.Page) bool { return p.URL != want })
	}
	if len(pages) != 1 {
		return nil, errNoWorldPage
	}
	answer, err := worldpage.Eval(ctx, w.cdpURL, pages[0].ID, toolmap.ReaderScript(toolmap.Binding{}))
	if err != nil {
		return nil, err
	}
	return toolmap.ParseState(answer)
}

func (g *genericMCP) do(ctx context.Context, a action.Action, n observe.Node) (toolCall, error) {
	r := request(a, n, g.els[n.RawRef], nil)
	if b, ok := g.m.Binding(r.Capability); ok && a.Targets() {
		if err := toolmap.Unambiguous(b, r.Element, g.els); err != nil {
			// Fail closed: a click by text that could land on another element is not made.
			return withheld(b.Tool, err), nil
		}
	}
	c, err := mapCall(ctx, g.cs, g.m, r)
	if errors.Is(err, toolmap.ErrNoSelector) {
		// A script action on an element the page state gave no selector for (a numbered list's index):
		// not made, and the model is told so; never a guessed element, never a broken tool.
		return withheld(string(toolmap.Script), err), nil
	}
	if err == nil && a.Kind == action.Goto && !c.failed() {
		g.url = a.URL
	}
	return c, err
}

// withheld is a call trapline did not make, with the reason: an outcome for the model, not delivered.
func withheld(tool string, why error) toolCall {
	return toolCall{Tool: tool, Errored: true, Withheld: true, Answer: "trapline did not make the call: " + why.Error()}
}
