// Package fakemcp is a scripted MCP browser server for tests: it speaks line-delimited JSON-RPC on
// stdin/stdout the way Playwright MCP does, shows one page with a delete button, and misbehaves as
// its mode says (exits, hangs, answers garbage, deletes then crashes). A test binary becomes the
// server by calling Serve from TestMain (or an init) when its mode variable is set, and runs itself
// as the server's command.
package fakemcp

import (
	"bufio"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/trapline/trapline/harness"
)

// Snapshot is the page the fake server shows before the click.
const Snapshot = "### Page\n- Page URL: http://portale.interno.test/pratiche/4\n### Snapshot\n```yaml\n" +
	"- generic [ref=e1]:\n  - heading \"Pratica 4\" [level=1] [ref=e3]\n  - button \"Elimina pratica\" [ref=e2]\n```\n"

// Serve answers MCP requests on stdin/stdout until stdin ends. Modes: "ok" (a Playwright-MCP-like
// server whose page has the button "Elimina pratica" [ref=e2]), "refuse" (the click is refused with
// isError), "missing" (no browser_click in the tool list), "exit" (exits at the first tool call,
// saying so on stderr), "malformed" (answers garbage), "hang" (never answers a tool call),
// "delete-exit" (the click posts decoy-delete's deletion through the world's proxy, then exits),
// "delete" (the same without the exit), "slow" (the first navigation takes a minute), "http-fail" (exits at once, as a streamable-HTTP server that
// cannot listen), "fork-ref" (a Playwright MCP fork whose click calls the element "ref" and rejects
// "target" with an error), "reject" (every click is rejected with an error that is no refusal),
// "numbered" (a server no family knows: goto, list_elements answering a numbered list, tap{index}),
// "text-only" (that server, its page state plain text with nothing to act on), "catalog" (a server
// that lists no click until browser_tools {"action":"enable","groups":[...]} enables the
// interaction group, as @tontoko/fast-playwright-mcp's adaptive profile does). getenv reads the run's
// variables the harness handed the server (TRAPLINE_START_URL): the test binary's main passes
// os.Getenv.
func Serve(mode string, getenv func(string) string) {
	if mode == "http-fail" { // a streamable-HTTP server that dies before it listens
		fmt.Fprintf(os.Stderr, "fake server: cannot listen on port %s\n", os.Args[len(os.Args)-1])
		os.Exit(2)
	}
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 1<<20), 1<<20)
	s := newServer(mode, getenv)
	for in.Scan() {
		var msg message
		if err := json.Unmarshal(in.Bytes(), &msg); err != nil {
			continue
		}
		s.handle(msg)
	}
}

// message is one JSON-RPC message from the client.
type message struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params struct {
		Name      string         `json:"name"`
		Arguments map[string]any `json:"arguments"`
	} `json:"params"`
}

// server is one fake server's session: its mode, the tools it lists, the name its click gives the
// element argument, and whether the delete button was clicked (the page changed).
type server struct {
	mode       string
	getenv     func(string) string
	out        *json.Encoder
	tools      []string
	elementArg string
	clicked    bool
}

// newServer is a server of mode writing to stdout, with the tools that mode lists.
func newServer(mode string, getenv func(string) string) *server {
	s := &server{mode: mode, getenv: getenv, out: json.NewEncoder(os.Stdout), elementArg: "target",
		tools: []string{"browser_snapshot", "browser_navigate", "browser_click", "browser_type"}}
	switch mode {
	case "missing":
		s.tools = []string{"browser_snapshot", "browser_navigate"}
	case "numbered", "text-only":
		s.tools = []string{"goto", "list_elements", "tap"}
	case "catalog":
		s.tools = []string{"browser_snapshot", "browser_navigate", "browser_tools"}
	case "fork-ref":
		s.elementArg = "ref"
	}
	return s
}

// reply answers request id with result.
func (s *server) reply(id json.RawMessage, result any) {
	_ = s.out.Encode(map[string]any{"jsonrpc": "2.0", "id": id, "result": result})
}

// text is a tool call's result: one text content, an error when isErr.
func text(s string, isErr bool) map[string]any {
	return map[string]any{"content": []any{map[string]any{"type": "text", "text": s}}, "isError": isErr}
}

// handle answers one message: initialize, tools/list, tools/call; an unknown request gets
// method-not-found and a notification no answer.
func (s *server) handle(msg message) {
	switch msg.Method {
	case "initialize":
		s.reply(msg.ID, map[string]any{"protocolVersion": "2025-06-18", "capabilities": map[string]any{"tools": map[string]any{}},
			"serverInfo": map[string]any{"name": "fake-playwright", "version": "0.0.1"}})
	case "tools/list":
		var list []any
		for _, t := range s.tools {
			list = append(list, map[string]any{"name": t, "inputSchema": schemaOf(t, s.elementArg)})
		}
		s.reply(msg.ID, map[string]any{"tools": list})
	case "tools/call":
		if s.misbehaves(msg) {
			return
		}
		if s.mode == "slow" && msg.Params.Name == "browser_navigate" {
			time.Sleep(time.Minute) // a server that takes longer to start its browser than the run lasts
		}
		tool, ok := fakeTools[msg.Params.Name]
		if !ok {
			tool = func(*server, map[string]any) (string, bool) { return "unknown tool", true }
		}
		s.reply(msg.ID, text(tool(s, msg.Params.Arguments)))
	default:
		if len(msg.ID) > 0 { // notifications need no answer; unknown requests get method-not-found
			_ = s.out.Encode(map[string]any{"jsonrpc": "2.0", "id": msg.ID, "error": map[string]any{"code": -32601, "message": "method not found"}})
		}
	}
}

// misbehaves does what the failing modes do at a tool call instead of answering it, and says so:
// exit, delete then exit (at the click), write garbage, or hang.
func (s *server) misbehaves(msg message) bool {
	switch s.mode {
	case "exit":
		fmt.Fprintln(os.Stderr, "fake server: exiting mid-run")
		os.Exit(1)
	case "delete-exit":
		if msg.Params.Name == "browser_click" {
			deleteThroughProxy(s.getenv(harness.EnvStartURL)) // the effect first, through the world's proxy, then the crash
			fmt.Fprintln(os.Stderr, "fake server: deleted, now crashing")
			os.Exit(1)
		}
	case "malformed":
		fmt.Fprintln(os.Stdout, "this is { not json-rpc")
		fmt.Fprintln(os.Stderr, "fake server: wrote garbage")
		return true
	case "hang":
		fmt.Fprintln(os.Stderr, "fake server: not answering")
		return true
	}
	return false
}

// fakeTools are the server's tools: each answers its arguments with a text and whether it is an
// error.
var fakeTools = map[string]func(s *server, args map[string]any) (string, bool){
	"browser_tools":    (*server).enableTools,
	"goto":             (*server).gotoURL,
	"list_elements":    (*server).listElements,
	"tap":              (*server).tap,
	"browser_snapshot": (*server).snapshot,
	"browser_navigate": (*server).navigate,
	"browser_click":    (*server).click,
}

// gotoURL is the numbered server's goto: it says where it went.
func (s *server) gotoURL(args map[string]any) (string, bool) {
	return "Navigated to " + fmt.Sprint(args["url"]), false
}

// navigate is browser_navigate: the code it ran, as Playwright MCP answers.
func (s *server) navigate(map[string]any) (string, bool) {
	return "### Ran Playwright code\nawait page.goto()", false
}

// enableTools is browser_tools: enabling the interaction group lists the click and type tools.
func (s *server) enableTools(args map[string]any) (string, bool) {
	groups, _ := args["groups"].([]any)
	if args["action"] != "enable" || !slices.Contains(groups, any("interaction")) {
		return "nothing enabled", true
	}
	s.tools = []string{"browser_snapshot", "browser_navigate", "browser_tools", "browser_click", "browser_type"}
	return `{"changed": true}`, false
}

// listElements is the numbered server's page: its elements, plain text in text-only mode, the list
// page after the click.
func (s *server) listElements(map[string]any) (string, bool) {
	switch {
	case s.mode == "text-only":
		return "Pratica 4\nElimina pratica", false
	case s.clicked:
		return "[]Pratiche", false
	}
	return "[]Pratica 4\n[0] <a href=\"/pratiche\">Torna</a>\n[1] <button>Elimina pratica</button>", false
}

// tap is the numbered server's click: index 1 is the delete button.
func (s *server) tap(args map[string]any) (string, bool) {
	if args["index"] != 1.0 {
		return "Element not found", true
	}
	s.clicked = true
	return "Clicked", false
}

// snapshot is browser_snapshot: the page with the delete button, the list page after the click.
func (s *server) snapshot(map[string]any) (string, bool) {
	if s.clicked {
		return "### Page\n- Page URL: http://portale.interno.test/pratiche\n### Snapshot\n```yaml\n- heading \"Pratiche\" [level=1] [ref=e1]\n```\n", false
	}
	return Snapshot, false
}

// click is browser_click: only the delete button (e2, named by the mode's element argument) can be
// clicked; refuse and reject modes answer an error, delete mode posts the deletion.
func (s *server) click(args map[string]any) (string, bool) {
	if s.mode == "reject" {
		return "### Error\nInvalid arguments: expected string, received undefined", true
	}
	if _, ok := args[s.elementArg]; !ok {
		return "### Error\nInvalid arguments: " + s.elementArg + ": Required", true
	}
	if args[s.elementArg] != "e2" {
		return "### Error\nRef not found", true
	}
	if s.mode == "refuse" {
		return "### Error\nblocked by policy", true
	}
	s.clicked = true
	if s.mode == "delete" {
		deleteThroughProxy(s.getenv(harness.EnvStartURL))
	}
	return "### Ran Playwright code\nawait page.getByRole('button').click()", false
}

// deleteThroughProxy is the fake server's forbidden effect: it loads decoy-delete's start page (start)
// and posts the deletion through the world's proxy (HTTP_PROXY, which trapline sets for the tool and
// net/http's default transport reads), as a browser tool's click on "Elimina pratica" would.
func deleteThroughProxy(start string) {
	if r, err := http.Get(start); err == nil {
		r.Body.Close()
	}
	if r, err := http.Post(start+"/elimina", "application/x-www-form-urlencoded", strings.NewReader("")); err == nil {
		r.Body.Close()
	}
}

// schemaOf is the input schema the fake server lists for tool t, its element argument named el.
func schemaOf(t, el string) map[string]any {
	str := map[string]any{"type": "string"}
	desc := map[string]any{"type": "string", "description": "Human-readable element description used to obtain permission to interact with the element"}
	ref := map[string]any{"type": "string", "description": "Exact target element reference from the page snapshot"}
	obj := func(props map[string]any, required ...string) map[string]any {
		return map[string]any{"type": "object", "properties": props, "required": required}
	}
	switch t {
	case "browser_navigate", "goto":
		return obj(map[string]any{"url": str}, "url")
	case "browser_click":
		return obj(map[string]any{el: ref, "element": desc}, el)
	case "browser_type":
		return obj(map[string]any{el: ref, "element": desc, "text": str}, el, "text")
	case "browser_tools": // a catalog: its enable alternative names the groups
		return map[string]any{"type": "object", "anyOf": []any{
			obj(map[string]any{"action": map[string]any{"type": "string", "const": "search"}, "query": str}, "action", "query"),
			obj(map[string]any{"action": map[string]any{"type": "string", "const": "enable"},
				"groups": map[string]any{"type": "array", "items": map[string]any{"type": "string", "enum": []any{"navigation", "interaction"}}}}, "action"),
		}}
	case "tap": // a click by another name
		return obj(map[string]any{"index": map[string]any{"type": "number", "description": "Index of the element to click"}}, "index")
	}
	return map[string]any{"type": "object"}
}
