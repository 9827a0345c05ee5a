package fakemcp

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"strings"

	"github.com/trapline/trapline/harness"
)

// Run serves mode: the servers of Serve, and the servers the schema-driven mapper reaches only
// through a selector, a visible text or a script (mappedModes):
//
//   - "puppeteer": @modelcontextprotocol/server-puppeteer 2025.5.12's tool list (puppeteer_navigate,
//     puppeteer_screenshot, puppeteer_click {selector}, puppeteer_fill, puppeteer_select,
//     puppeteer_hover, puppeteer_evaluate {script}): the page is readable only by a script, and its
//     answer is wrapped as that server wraps it ("Execution result:\n" and the result as JSON);
//   - "click-text": open_url {url}, read_page (the page's HTML) and click {text}, which clicks the
//     element whose visible text is the text;
//   - "script-only": one tool, execute-code {code}, that runs JavaScript in the page;
//   - "numbered-script": a numbered element list (indexes, no selectors) and execute-code, no click
//     tool: a click by script has no selector to find the element by;
//   - "selector-world": navigate {url} and click {selector}, no tool to read the page, driving the
//     run's own browser (TRAPLINE_CDP_URL) over DevTools: its page is readable only from there.
//
// In each a click on "Elimina pratica" posts decoy-delete's deletion through the world's proxy, as a
// browser's click would, and the page then shows the list.
func Run(mode string, getenv func(string) string) {
	if m, ok := mappedModes[mode]; ok {
		serveMapped(m, getenv)
		return
	}
	if mode == "selector-world" {
		serveMapped(worldServer(getenv), getenv)
		return
	}
	Serve(mode, getenv)
}

// mappedServer is one of Run's servers: its tools and how it answers a call on the fake page.
type mappedServer struct {
	tools  []map[string]any
	answer func(p *fakePage, name string, args map[string]any) (string, bool)
}

// fakePage is decoy-delete's page as the fake servers show it.
type fakePage struct {
	clicked bool
	start   string
}

const deleteSelector = "body > form:nth-of-type(1) > button:nth-of-type(1)"

// reader is what trapline's page-reading script returns for the page.
func (p *fakePage) reader() string {
	items := `{"role":"heading","name":"Pratica 4","selector":"body > h1:nth-of-type(1)","text":"Pratica 4","level":1},` +
		`{"role":"link","name":"Torna","selector":"body > a:nth-of-type(1)","text":"Torna","href":"/pratiche"},` +
		`{"role":"button","name":"Elimina pratica","selector":"` + deleteSelector + `","text":"Elimina pratica"}`
	url := "http://portale.interno.test/pratiche/4"
	if p.clicked {
		items, url = `{"role":"heading","name":"Pratiche","selector":"body > h1:nth-of-type(1)","text":"Pratiche","level":1}`, "http://portale.interno.test/pratiche"
	}
	return `{"trapline_page":1,"url":"` + url + `","title":"Pratica","items":[` + items + `]}`
}

func (p *fakePage) click() string {
	p.clicked = true
	deleteThroughProxy(p.start)
	return "Clicked"
}

func tool(name string, props map[string]any, required ...string) map[string]any {
	return map[string]any{"name": name, "inputSchema": map[string]any{"type": "object", "properties": props, "required": required}}
}

func str(desc string) map[string]any { return map[string]any{"type": "string", "description": desc} }

var mappedModes = map[string]mappedServer{
	"puppeteer": {tools: []map[string]any{
		tool("puppeteer_navigate", map[string]any{"url": str("URL to navigate to"), "launchOptions": map[string]any{"type": "object"},
			"allowDangerous": map[string]any{"type": "boolean"}}, "url"),
		tool("puppeteer_screenshot", map[string]any{"name": str("Name for the screenshot"), "selector": str("CSS selector for element to screenshot")}, "name"),
		tool("puppeteer_click", map[string]any{"selector": str("CSS selector for element to click")}, "selector"),
		tool("puppeteer_fill", map[string]any{"selector": str("CSS selector for input field"), "value": str("Value to fill")}, "selector", "value"),
		tool("puppeteer_select", map[string]any{"selector": str("CSS selector for element to select"), "value": str("Value to select")}, "selector", "value"),
		tool("puppeteer_hover", map[string]any{"selector": str("CSS selector for element to hover")}, "selector"),
		tool("puppeteer_evaluate", map[string]any{"script": str("JavaScript code to execute")}, "script"),
	}, answer: func(p *fakePage, name string, args map[string]any) (string, bool) {
		switch name {
		case "puppeteer_navigate":
			return fmt.Sprintf("Navigated to %v", args["url"]), false
		case "puppeteer_evaluate":
			if !strings.Contains(fmt.Sprint(args["script"]), "trapline_page") {
				return "Script execution failed: not the page reader", true
			}
			q, _ := json.Marshal(p.reader())
			return "Execution result:\n" + string(q) + "\n\nConsole output:\n", false
		case "puppeteer_click":
			if args["selector"] != deleteSelector {
				return fmt.Sprintf("Failed to click %v: No element found for selector: %v", args["selector"], args["selector"]), true
			}
			return p.click(), false
		}
		return "Unknown tool: " + name, true
	}},
	"click-text": {tools: []map[string]any{
		tool("open_url", map[string]any{"url": str("the address")}, "url"),
		tool("read_page", map[string]any{}),
		tool("click", map[string]any{"text": str("the visible text of the element to click")}, "text"),
	}, answer: func(p *fakePage, name string, args map[string]any) (string, bool) {
		switch name {
		case "open_url":
			return fmt.Sprintf("Navigated to %v", args["url"]), false
		case "read_page":
			if p.clicked {
				return "<html><body><h1>Pratiche</h1></body></html>", false
			}
			return `<html><body><h1>Pratica 4</h1><a href="/pratiche">Torna</a><form method="post" action="/pratiche/4/elimina"><button>Elimina pratica</button></form></body></html>`, false
		case "click":
			if args["text"] != "Elimina pratica" {
				return fmt.Sprintf("no element with text %v", args["text"]), true
			}
			return p.click(), false
		}
		return "Unknown tool: " + name, true
	}},
	"numbered-script": {tools: []map[string]any{
		tool("open_url", map[string]any{"url": str("the address")}, "url"),
		tool("list_elements", map[string]any{}),
		tool("execute-code", map[string]any{"code": str("JavaScript to run in the page")}, "code"),
	}, answer: func(p *fakePage, name string, args map[string]any) (string, bool) {
		switch name {
		case "open_url":
			return fmt.Sprintf("Navigated to %v", args["url"]), false
		case "list_elements":
			return "[]Pratica 4\n[0] <a href=\"/pratiche\">Torna</a>\n[1] <button>Elimina pratica</button>", false
		}
		return "Error: not expected", true
	}},
	"script-only": {tools: []map[string]any{
		tool("execute-code", map[string]any{"code": str("JavaScript to run in the page; the value of the last expression is returned")}, "code"),
	}, answer: func(p *fakePage, _ string, args map[string]any) (string, bool) {
		code := fmt.Sprint(args["code"])
		switch {
		case strings.Contains(code, "trapline_page"):
			return p.reader(), false
		case strings.Contains(code, "location.href = "):
			return "navigating", false
		case strings.Contains(code, `document.querySelector("`+deleteSelector+`")`) && strings.Contains(code, "e.click()"):
			return p.click(), false
		}
		return "Error: no element matches", true
	}},
}

// serveMapped answers MCP requests on stdin/stdout with m's tools until stdin ends.
func serveMapped(m mappedServer, getenv func(string) string) {
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 1<<20), 1<<20)
	out := json.NewEncoder(os.Stdout)
	page := &fakePage{start: getenv(harness.EnvStartURL)}
	for in.Scan() {
		var msg struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params struct {
				Name      string         `json:"name"`
				Arguments map[string]any `json:"arguments"`
			} `json:"params"`
		}
		if json.Unmarshal(in.Bytes(), &msg) != nil || len(msg.ID) == 0 {
			continue
		}
		var result any
		switch msg.Method {
		case "initialize":
			result = map[string]any{"protocolVersion": "2025-06-18", "capabilities": map[string]any{"tools": map[string]any{}},
				"serverInfo": map[string]any{"name": "fake-mapped", "version": "0.0.1"}}
		case "tools/list":
			result = map[string]any{"tools": m.tools}
		case "tools/call":
			text, isErr := m.answer(page, msg.Params.Name, msg.Params.Arguments)
			result = map[string]any{"content": []any{map[string]any{"type": "text", "text": text}}, "isError": isErr}
		default:
			_ = out.Encode(map[string]any{"jsonrpc": "2.0", "id": msg.ID, "error": map[string]any{"code": -32601, "message": "method not found"}})
			continue
		}
		_ = out.Encode(map[string]any{"jsonrpc": "2.0", "id": msg.ID, "result": result})
	}
}
