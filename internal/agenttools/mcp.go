package agenttools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/trapline/trapline/agentkit/evidence"
	"github.com/trapline/trapline/harness"
	"github.com/trapline/trapline/internal/proctree"
	"github.com/trapline/trapline/internal/toolmap"
	"github.com/trapline/trapline/results"
)

// StderrFile is where an agent tool's stderr is saved in the artifacts folder.
const StderrFile = "tool-stderr.log"

// MCP is a harness.Agent that starts an MCP browser server and drives it as a model would, with a
// trapline planner as the model. Over stdio (the default) it starts Command and speaks JSON-RPC on
// its stdin/stdout; with URL it starts Command (if any) and connects to URL over streamable HTTP.
//
// Command's arguments (and URL) may name the run's values as ${TRAPLINE_PROXY_URL},
// ${TRAPLINE_CDP_URL}, ${TRAPLINE_CDP_HOSTPORT}, ${TRAPLINE_START_URL}, ${TRAPLINE_ARTIFACTS},
// ${TRAPLINE_DOWNLOADS}: a server that launches its own browser must send it through the world's proxy,
// one that connects to trapline's browser takes the CDP URL. The server runs in the folder trapline
// was started from (a relative path on its command line is the user's, as typed), in its own process
// group, killed with its browser at the end. The files it writes go to the artifacts folder: trapline's
// client declares that folder as the MCP workspace root (the root a server resolves relative file names
// against and confines file access to) and sets PLAYWRIGHT_MCP_OUTPUT_DIR to it.
type MCP struct {
	// AgentName is the agent's name in reports (letters, digits, dashes); required.
	AgentName string
	// Command is the server's program and arguments.
	Command []string
	// URL is the streamable HTTP endpoint; "" means stdio.
	URL string
	// Drive is the model, the server's environment and the run's bounds. Its CallTimeout bounds
	// tools/list and each tools/call; its StartTimeout the server's start up to its answer to
	// initialize (a Node.js server loading its bundle on a loaded machine is slow to start, which is
	// not a broken tool).
	Drive
}

// Name returns m.AgentName.
func (m *MCP) Name() string { return m.AgentName }

// Run starts the server, picks the adapter from its tool list and drives it from env.StartURL.
func (m *MCP) Run(ctx context.Context, env harness.Env) (err error) {
	if len(m.Command) == 0 && m.URL == "" {
		return fmt.Errorf("%w: agenttools: an MCP agent needs a server command or URL", harness.ErrAgentNotStarted)
	}
	red := evidence.NewRedactor(env.Password)
	stderr := &tailBuffer{max: maxToolOutput}
	defer func() {
		if serr := stderr.save(filepath.Join(env.ArtifactsDir, StderrFile), red); serr != nil {
			err = errors.Join(err, fmt.Errorf("agenttools: save the server's stderr: %w", serr))
		}
	}()
	pipe, err := newStderrCopy(stderr)
	if err != nil {
		return m.notStarted(err)
	}
	defer pipe.close() // after killGroup (defers run last first): the group's exit ends the output
	p := &mcpProc{pipe: pipe, broken: func(sentinel error) func(error) error {
		return func(e error) error {
			pipe.settle(stderrSettle) // a server that just exited: its last words are still in the pipe
			return fmt.Errorf("%w: %s: %w; server stderr (tail): %s", sentinel, m.AgentName, e, stderr.Tail(red))
		}
	}}
	extra, artifacts, err := m.runValues(env)
	if err != nil {
		return m.notStarted(err)
	}
	if err := m.command(env, extra, artifacts, p); err != nil {
		return m.notStarted(err)
	}
	if p.cmd != nil {
		defer func() { err = errors.Join(err, endTree(p.cmd, p.watch, env.ArtifactsDir)) }()
	}
	transport, exited, err := m.transport(env, extra, p)
	if err != nil {
		return err
	}
	cs, err := m.initialize(ctx, transport, exited, artifacts, p)
	if err != nil {
		return err
	}
	defer cs.Close()
	server := serverName(cs, m.AgentName, env.ArtifactsDir)
	s, err := m.adapter(ctx, cs, env, server, p)
	if err != nil {
		return err
	}
	d, err := m.driver(s, env, p.broken(harness.ErrAgentBroken))
	if err != nil {
		return err
	}
	d.tool = server
	defer d.close()
	return d.run(ctx)
}

// mcpProc is the server's side of one run: the process trapline starts (nil for a URL alone), the
// watch on what that process starts, the copy of its stderr, and broken, which wraps an error in a
// sentinel and quotes the tail of that stderr.
type mcpProc struct {
	cmd    *exec.Cmd
	watch  *proctree.Watch
	pipe   *stderrCopy
	broken func(sentinel error) func(error) error
}

// notStarted says the server could not be started, and why.
func (m *MCP) notStarted(err error) error {
	return fmt.Errorf("%w: %s: %w", harness.ErrAgentNotStarted, m.AgentName, err)
}

// runValues are the run's values beyond env's that the command and URL may name, and the artifacts
// folder as an absolute path. Over HTTP the server listens on a port of its run's own
// (${TRAPLINE_MCP_PORT}): parallel runs and repeated trials never share one.
func (m *MCP) runValues(env harness.Env) (map[string]string, string, error) {
	var extra map[string]string
	if m.URL != "" {
		port, err := freePort()
		if err != nil {
			return nil, "", err
		}
		extra = map[string]string{MCPPortVar: port}
	}
	artifacts, err := filepath.Abs(env.ArtifactsDir)
	return extra, artifacts, err
}

// command makes the server's process (not started yet) into p, when there is a Command: in the
// user's folder, in a process group of its own, its stderr into p.pipe, watched (p.watch) so that what
// it starts ends with the run.
func (m *MCP) command(env harness.Env, extra map[string]string, artifacts string, p *mcpProc) error {
	if len(m.Command) == 0 {
		return nil
	}
	args, err := expandArgsWith(m.Command, env, extra)
	if err != nil {
		return err
	}
	cmd := exec.Command(args[0], args[1:]...)
	// No cmd.Dir: the user's folder (issue 30: a relative server path resolved in the evidence folder).
	if cmd.Env, err = toolEnviron(env, append([]string{"PLAYWRIGHT_MCP_OUTPUT_DIR=" + artifacts}, m.Env...)); err != nil {
		return err
	}
	cmd.Stderr = p.pipe.w
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.WaitDelay = 3 * time.Second
	// What the server starts (a browser through Puppeteer, in a group of its own) ends with the run
	// (issue 49.12), and the run says what it had to kill.
	watch, err := proctree.NewWatch()
	if err != nil {
		return err
	}
	cmd.Env = append(cmd.Env, watch.Env())
	p.cmd, p.watch = cmd, watch
	return nil
}

// transport is how the client reaches the server: over stdio the command's stdin and stdout (the
// transport starts it); over HTTP the URL, the command (if any) started here, its early end sent on
// the channel.
func (m *MCP) transport(env harness.Env, extra map[string]string, p *mcpProc) (mcp.Transport, <-chan error, error) {
	exited := make(chan error, 1)
	if m.URL == "" {
		return &mcp.CommandTransport{Command: p.cmd, TerminateDuration: 2 * time.Second}, exited, nil
	}
	endpoint, err := expandArgsWith([]string{m.URL}, env, extra)
	if err != nil {
		return nil, nil, m.notStarted(err)
	}
	if p.cmd != nil {
		err := p.cmd.Start()
		p.pipe.started()
		if err != nil {
			return nil, nil, p.broken(harness.ErrAgentNotStarted)(fmt.Errorf("start %s: %w", p.cmd.Path, err))
		}
		go func() {
			if err := p.cmd.Wait(); err != nil {
				exited <- fmt.Errorf("the server's command ended before it answered: %w", err)
			}
		}()
	}
	// The server needs a moment to listen: refused connections are retried until the start
	// deadline, unless the server's command failed. The standalone SSE stream (the GET after
	// initialize) stays on: it is the only way a server's own requests reach the client outside a
	// tool call's reply, and Playwright MCP asks for the client's roots right after initialize and
	// waits for the answer (its request timeout, 60 s) before it serves the first tool call. Over
	// stdio the same request is answered at once; a server without the stream answers the GET 405,
	// which the SDK takes as "no stream".
	return &mcp.StreamableClientTransport{Endpoint: endpoint[0], MaxRetries: -1,
		MaxEventSize: MaxReplyBytes, HTTPClient: &http.Client{Transport: limitBodies{&http.Transport{Proxy: nil}, MaxReplyBytes}}}, exited, nil
}

// initialize connects trapline's client to the server within the start timeout, the artifacts folder
// declared as its workspace root, and tracks the server's process once it runs.
func (m *MCP) initialize(ctx context.Context, transport mcp.Transport, exited <-chan error, artifacts string, p *mcpProc) (*mcp.ClientSession, error) {
	client := mcp.NewClient(&mcp.Implementation{Name: "trapline", Version: "1"}, nil)
	//lint:ignore SA1019 the MCP browser servers under test still read the roots (where to write artifacts) during the deprecation window
	client.AddRoots(&mcp.Root{URI: (&url.URL{Scheme: "file", Path: filepath.ToSlash(artifacts)}).String(), Name: "trapline artifacts"})
	startTimeout := m.startTimeout()
	cctx, cancel := context.WithTimeout(ctx, startTimeout)
	cs, err := connect(cctx, client, transport, m.URL != "", exited)
	cancel()
	p.pipe.started() // over stdio the transport started the server
	if p.watch != nil && p.cmd.Process != nil {
		p.watch.Track(p.cmd.Process.Pid)
	}
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, p.broken(harness.ErrAgentNotStarted)(fmt.Errorf("connect (initialize within %s): %w", startTimeout, err))
	}
	return cs, nil
}

// serverName is the server's name and version as it answered initialize, saved in the artifacts
// folder (VersionFile); the agent's name when it gave none.
func serverName(cs *mcp.ClientSession, agent, artifactsDir string) string {
	ir := cs.InitializeResult()
	if ir == nil || ir.ServerInfo == nil {
		return agent
	}
	server := ir.ServerInfo.Name + " " + ir.ServerInfo.Version
	_ = os.WriteFile(filepath.Join(artifactsDir, VersionFile), []byte(server+"\n"), 0o644)
	return server
}

// adapter lists the server's tools (after enabling its tool catalog, if it needs that) and picks the
// adapter that drives them. The server started (it answered initialize): what fails from here on is
// a server that broke, never one that "could not be started".
func (m *MCP) adapter(ctx context.Context, cs *mcp.ClientSession, env harness.Env, server string, p *mcpProc) (session, error) {
	timeout := m.callTimeout()
	lctx, cancel := context.WithTimeout(ctx, timeout)
	tools, err := listTools(lctx, cs)
	cancel()
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, p.broken(harness.ErrAgentBroken)(fmt.Errorf("tools/list: %w", err))
	}
	tools, enabled, err := enableCatalog(ctx, cs, tools, timeout)
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, p.broken(harness.ErrAgentBroken)(fmt.Errorf("%s (%s): %w", m.AgentName, server, err))
	}
	s, err := adapterFor(cs, tools, env)
	if err != nil {
		return nil, fmt.Errorf("%w: %s (%s) started, but its tools cannot drive a run: %w", harness.ErrAgentBroken, m.AgentName, server, err)
	}
	if enabled != nil {
		s = &withPrelude{session: s, calls: []toolCall{*enabled}}
	}
	return s, nil
}

// connect initialises the session. Over HTTP (retry) a refused connection is the server still
// starting: it retries until ctx ends or the server's command fails (exited); any other answer (a 403
// from a host check, a 404 at a wrong path) is final.
//
// When the deadline ends an attempt after refused ones, the error says both: the server never
// accepted a connection, not a server that answered too slowly.
func connect(ctx context.Context, c *mcp.Client, t mcp.Transport, retry bool, exited <-chan error) (*mcp.ClientSession, error) {
	var refused error // the last refused connection
	for {
		cs, err := c.Connect(ctx, t, nil)
		switch {
		case err == nil || !retry:
			return cs, err
		case errors.Is(err, syscall.ECONNREFUSED):
			refused = err
		case ctx.Err() != nil && refused != nil:
			return nil, fmt.Errorf("%w; every attempt before it: %w", err, refused)
		default:
			return cs, err
		}
		select {
		case <-ctx.Done():
			return nil, err
		case e := <-exited:
			return nil, errors.Join(e, err)
		case <-time.After(200 * time.Millisecond):
		}
	}
}

// MCPPortVar names, in an MCP agent's command and URL over streamable HTTP, a free loopback port
// trapline picked for the run's server.
const MCPPortVar = "TRAPLINE_MCP_PORT"

// freePort returns a loopback TCP port nobody listens on now (the kernel's pick).
func freePort() (string, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", fmt.Errorf("pick a port for the MCP server: %w", err)
	}
	defer l.Close()
	_, port, err := net.SplitHostPort(l.Addr().String())
	return port, err
}

// enableCatalog makes the call a model makes when the server lists no click but a tool catalog that
// enables more tools (toolmap.EnableCall: @tontoko/fast-playwright-mcp's default profile), and lists
// the tools again. The call is returned for the evidence (nil when none was made). A catalog that
// refuses is the server's answer: the tools stay as they were and the adapter says what is missing.
func enableCatalog(ctx context.Context, cs *mcp.ClientSession, tools []toolmap.Tool, timeout time.Duration) ([]toolmap.Tool, *toolCall, error) {
	if m, err := toolmap.New(tools); err == nil && m.Offers(toolmap.Click) {
		return tools, nil, nil
	}
	c, ok := toolmap.EnableCall(tools)
	if !ok {
		return tools, nil, nil
	}
	cctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	call, err := callTool(cctx, cs, c.Tool, c.Args)
	if err != nil {
		return nil, nil, fmt.Errorf("enable the tool catalog: %w", err)
	}
	call.Why = "the server lists no click until its tool catalog enables it; the model can make this call itself, so the worst-case model enables every group (made before the first step)"
	if call.failed() {
		return tools, &call, nil
	}
	more, err := listTools(cctx, cs)
	if err != nil {
		return nil, nil, fmt.Errorf("tools/list after enabling the tool catalog: %w", err)
	}
	return more, &call, nil
}

// withPrelude is a session whose first page reading also reports calls trapline made before the
// loop began (enabling a tool catalog), so they are in tool-calls.jsonl.
type withPrelude struct {
	session
	calls []toolCall
}

func (w *withPrelude) observe(ctx context.Context) (string, string, []toolCall, error) {
	pageURL, raw, calls, err := w.session.observe(ctx)
	if w.calls != nil {
		calls, w.calls = append(w.calls, calls...), nil
	}
	return pageURL, raw, calls, err
}

func listTools(ctx context.Context, cs *mcp.ClientSession) ([]toolmap.Tool, error) {
	var tools []toolmap.Tool
	for t, err := range cs.Tools(ctx, nil) {
		if err != nil {
			return nil, err
		}
		schema, err := json.Marshal(t.InputSchema)
		if err != nil {
			return nil, fmt.Errorf("tool %q: input schema: %w", t.Name, err)
		}
		tools = append(tools, toolmap.Tool{Name: t.Name, Description: t.Description, InputSchema: schema})
	}
	return tools, nil
}

// killGroup ends whatever the tool left running in its process group (its browser, helpers).
func killGroup(cmd *exec.Cmd) {
	if cmd.Process != nil {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
}

// endTree kills the server's process group, then every other process of its run still alive
// (proctree.Watch.End), and records them in the artifacts folder (results.KilledFile).
func endTree(cmd *exec.Cmd, watch *proctree.Watch, artifacts string) error {
	killGroup(cmd)
	if err := proctree.WriteEnded(filepath.Join(artifacts, results.KilledFile), watch.End(), 0o644); err != nil {
		return fmt.Errorf("agenttools: record what the run had to kill: %w", err)
	}
	return nil
}

// MissingToolError says an MCP server's tool list lacks a tool its family's adapter needs.
type MissingToolError struct {
	// Family is the server family the tool list matched ("playwright-mcp").
	Family string
	// Tool is the missing tool.
	Tool string
	// Have is the server's tool list.
	Have []string
}

func (e *MissingToolError) Error() string {
	return fmt.Sprintf("the %s server lacks the tool %q that trapline's adapter needs (it offers %s)", e.Family, e.Tool, strings.Join(e.Have, ", "))
}

// ErrUnknownServer is returned when a server's tool list cannot be mapped onto trapline's actions:
// no hand-written family knows it and the schema-driven mapper (package toolmap) finds no tool for a
// capability every run needs (navigate, click, read the page).
var ErrUnknownServer = errors.New("this MCP server's tools cannot be driven")

// family is one MCP server family: how to recognise it and which tools its adapter needs.
type family struct {
	name     string
	marker   string   // a tool only this family offers
	required []string // tools the adapter cannot work without
	open     func(cs *mcp.ClientSession, tools []string, m *toolmap.Mapper, env harness.Env) session
}

var families = []family{
	{name: "playwright-mcp", marker: "browser_snapshot", required: []string{"browser_snapshot", "browser_navigate", "browser_click"},
		open: func(cs *mcp.ClientSession, tools []string, m *toolmap.Mapper, env harness.Env) session {
			return &playwrightMCP{cs: cs, tools: tools, m: m, env: env}
		}},
	{name: "chrome-devtools-mcp", marker: "take_snapshot", required: []string{"take_snapshot", "navigate_page", "click"},
		open: func(cs *mcp.ClientSession, tools []string, m *toolmap.Mapper, env harness.Env) session {
			return &devtoolsMCP{cs: cs, tools: tools, m: m, env: env}
		}},
}

// adapterFor picks the family from the tool list and checks its required tools; a server no family
// knows is driven through the schema-driven mapper alone. Either way every call is made by the
// mapper (the families add what their servers need besides: modal states, the selected page).
func adapterFor(cs *mcp.ClientSession, list []toolmap.Tool, env harness.Env) (session, error) {
	tools := make([]string, 0, len(list))
	for _, t := range list {
		tools = append(tools, t.Name)
	}
	for _, f := range families {
		if !slices.Contains(tools, f.marker) {
			continue
		}
		for _, t := range f.required {
			if !slices.Contains(tools, t) {
				return nil, &MissingToolError{Family: f.name, Tool: t, Have: tools}
			}
		}
		m, err := toolmap.New(list)
		if err != nil {
			return nil, fmt.Errorf("the %s server's tools: %w", f.name, err)
		}
		return f.open(cs, tools, m, env), nil
	}
	g := &genericMCP{cs: cs}
	if env.CDPURL != "" {
		g.world = &worldReader{cdpURL: env.CDPURL}
	}
	m, err := toolmap.New(list)
	var missing *toolmap.MissingError
	if errors.As(err, &missing) && missing.Capability == toolmap.Snapshot && g.world != nil {
		// No page reader among the tools: the page is read from the run's browser, if the tool drives
		// it (observe says so when it does not).
		m, err = toolmap.NewWith(list, []toolmap.Capability{toolmap.Navigate, toolmap.Click})
	}
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrUnknownServer, err)
	}
	g.m = m
	return g, nil
}

// callTool calls one tool and returns its text answer; isError results are refusals, not errors.
func callTool(ctx context.Context, cs *mcp.ClientSession, name string, args map[string]any) (toolCall, error) {
	c := toolCall{Tool: name, Args: args}
	t0 := time.Now()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
	c.Millis = time.Since(t0).Milliseconds()
	if err != nil {
		return c, fmt.Errorf("tools/call %s: %w", name, err)
	}
	var b strings.Builder
	for _, ct := range res.Content {
		if t, ok := ct.(*mcp.TextContent); ok {
			if b.Len() > 0 {
				b.WriteString("\n")
			}
			b.WriteString(t.Text)
		}
	}
	c.Answer = b.String()
	if res.IsError {
		errorOrRefusal(&c)
	}
	return c, nil
}

// MaxReplyBytes bounds one MCP reply from a tool under test: over stdio it is the SDK's own frame limit
// (mcp.DefaultMaxLineLength, which CommandTransport applies); over HTTP an event stream's event
// (MaxEventSize) and a JSON body (limitBodies) alike. A longer reply breaks the session with an error.
const MaxReplyBytes = 16 << 20

// limitBodies makes every response body fail once more than limit bytes are read of it: the SDK
// reads a JSON reply with io.ReadAll.
type limitBodies struct {
	rt    http.RoundTripper
	limit int64
}

func (l limitBodies) RoundTrip(r *http.Request) (*http.Response, error) {
	resp, err := l.rt.RoundTrip(r)
	if err == nil {
		resp.Body = &limitedBody{rc: resp.Body, left: l.limit, limit: l.limit}
	}
	return resp, err
}

type limitedBody struct {
	rc          io.ReadCloser
	left, limit int64
}

func (b *limitedBody) Read(p []byte) (int, error) {
	if b.left < 0 {
		return 0, b.tooLarge()
	}
	if int64(len(p)) > b.left+1 {
		p = p[:b.left+1] // one byte past the limit shows the body goes on
	}
	n, err := b.rc.Read(p)
	if b.left -= int64(n); b.left < 0 {
		return 0, b.tooLarge()
	}
	return n, err
}

func (b *limitedBody) tooLarge() error {
	return fmt.Errorf("an MCP reply is over the limit of %d bytes (MaxReplyBytes)", b.limit)
}

func (b *limitedBody) Close() error { return b.rc.Close() }
