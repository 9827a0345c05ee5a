package toolmap

import (
	"encoding/json"
	"errors"
	"os"
	"reflect"
	"slices"
	"strings"
	"testing"
)

func loadTools(t *testing.T, name string) []Tool {
	t.Helper()
	b, err := os.ReadFile("testdata/" + name + ".tools.json")
	if err != nil {
		t.Fatal(err)
	}
	var tools []Tool
	if err := json.Unmarshal(b, &tools); err != nil {
		t.Fatal(err)
	}
	return tools
}

func idx(i int) *int { return &i }

var button = Element{Ref: "e2", UID: "1_2", Index: idx(3), Selector: "#elimina", Role: "button", Name: "Elimina pratica"}

// The profiles: each recorded tool list (tools/list of the pinned server) maps onto the calls the
// hand-written adapters made, or onto the server's own names.
func TestProfiles(t *testing.T) {
	for _, tc := range []struct {
		file string
		req  Request
		tool string
		args map[string]any
	}{
		{"playwright-mcp-0.0.83", Request{Capability: Click, Element: button}, "browser_click",
			map[string]any{"target": "e2", "element": `button "Elimina pratica"`}},
		{"playwright-mcp-0.0.83", Request{Capability: Fill, Element: button, Value: "x"}, "browser_type",
			map[string]any{"target": "e2", "element": `button "Elimina pratica"`, "text": "x"}},
		{"playwright-mcp-0.0.83", Request{Capability: Select, Element: button, Value: "a"}, "browser_select_option",
			map[string]any{"target": "e2", "element": `button "Elimina pratica"`, "values": []string{"a"}}},
		{"playwright-mcp-0.0.83", Request{Capability: Navigate, URL: "http://p.test/"}, "browser_navigate", map[string]any{"url": "http://p.test/"}},
		{"playwright-mcp-0.0.83", Request{Capability: Press, Key: "Enter"}, "browser_press_key", map[string]any{"key": "Enter"}},
		{"playwright-mcp-0.0.83", Request{Capability: Scroll, Direction: "down"}, "browser_press_key", map[string]any{"key": "PageDown"}},
		{"playwright-mcp-0.0.83", Request{Capability: Snapshot}, "browser_snapshot", map[string]any{}},
		{"playwright-mcp-0.0.83", Request{Capability: Hover, Element: button}, "browser_hover",
			map[string]any{"target": "e2", "element": `button "Elimina pratica"`}},
		{"chrome-devtools-mcp-1.11.0", Request{Capability: Click, Element: button, Context: map[string]any{"pageId": 1}}, "click",
			map[string]any{"uid": "1_2", "pageId": 1}},
		{"chrome-devtools-mcp-1.11.0", Request{Capability: Fill, Element: button, Value: "v", Context: map[string]any{"pageId": 1}}, "fill",
			map[string]any{"uid": "1_2", "pageId": 1, "value": "v"}},
		{"chrome-devtools-mcp-1.11.0", Request{Capability: Navigate, URL: "http://p.test/", Context: map[string]any{"pageId": 1}}, "navigate_page",
			map[string]any{"url": "http://p.test/", "pageId": 1, "type": "url"}},
		{"chrome-devtools-mcp-1.11.0", Request{Capability: Snapshot, Context: map[string]any{"pageId": 1}}, "take_snapshot", map[string]any{"pageId": 1}},
		{"chrome-devtools-mcp-1.11.0", Request{Capability: Press, Key: "Enter", Context: map[string]any{"pageId": 1}}, "press_key", map[string]any{"key": "Enter", "pageId": 1}},
		{"agent-infra-mcp-server-browser-1.2.29", Request{Capability: Click, Element: button}, "browser_click", map[string]any{"index": 3}},
		{"agent-infra-mcp-server-browser-1.2.29", Request{Capability: Fill, Element: button, Value: "v"}, "browser_form_input_fill", map[string]any{"index": 3, "value": "v"}},
		{"agent-infra-mcp-server-browser-1.2.29", Request{Capability: Snapshot}, "browser_get_clickable_elements", map[string]any{}},
		{"agent-infra-mcp-server-browser-1.2.29", Request{Capability: Navigate, URL: "http://p.test/"}, "browser_navigate", map[string]any{"url": "http://p.test/"}},
		{"executeautomation-playwright-mcp-server-1.0.12", Request{Capability: Click, Element: button}, "playwright_click", map[string]any{"selector": "#elimina"}},
		{"executeautomation-playwright-mcp-server-1.0.12", Request{Capability: Navigate, URL: "http://p.test/"}, "playwright_navigate",
			map[string]any{"url": "http://p.test/", "headless": true}},
		{"executeautomation-playwright-mcp-server-1.0.12", Request{Capability: Snapshot}, "playwright_get_visible_html", map[string]any{}},
		{"executeautomation-playwright-mcp-server-1.0.12", Request{Capability: Fill, Element: button, Value: "v"}, "playwright_fill", map[string]any{"selector": "#elimina", "value": "v"}},
		// Playwright MCP forks: @ejazullah/mcp-playwright calls the element "ref", as Playwright MCP did
		// before 0.0.83; @tontoko/fast-playwright-mcp (--tool-profile full) takes a list of selector
		// objects, the snapshot's ref in one of them.
		{"ejazullah-mcp-playwright-0.0.41", Request{Capability: Click, Element: button}, "browser_click",
			map[string]any{"ref": "e2", "element": `button "Elimina pratica"`}},
		{"ejazullah-mcp-playwright-0.0.41", Request{Capability: Snapshot}, "browser_snapshot", map[string]any{}},
		{"tontoko-fast-playwright-mcp-0.2.0-full", Request{Capability: Click, Element: button}, "browser_click",
			map[string]any{"selectors": []any{map[string]any{"ref": "e2"}}}},
		{"tontoko-fast-playwright-mcp-0.2.0-full", Request{Capability: Fill, Element: button, Value: "v"}, "browser_type",
			map[string]any{"selectors": []any{map[string]any{"ref": "e2"}}, "text": "v"}},
		{"tontoko-fast-playwright-mcp-0.2.0-full", Request{Capability: Select, Element: button, Value: "a"}, "browser_select_option",
			map[string]any{"selectors": []any{map[string]any{"ref": "e2"}}, "values": []string{"a"}}},
		{"tontoko-fast-playwright-mcp-0.2.0-full", Request{Capability: Hover, Element: button}, "browser_hover",
			map[string]any{"selectors": []any{map[string]any{"ref": "e2"}}}},
		{"tontoko-fast-playwright-mcp-0.2.0-full", Request{Capability: Snapshot}, "browser_snapshot", map[string]any{}},
	} {
		m, err := New(loadTools(t, tc.file))
		if err != nil {
			t.Fatalf("%s: New: %v", tc.file, err)
		}
		c, err := m.Map(tc.req)
		if err != nil {
			t.Errorf("%s %s: Map: %v", tc.file, tc.req.Capability, err)
			continue
		}
		got, _ := json.Marshal(c.Args)
		want, _ := json.Marshal(tc.args)
		if c.Tool != tc.tool || string(got) != string(want) {
			t.Errorf("%s %s = %s %s, want %s %s", tc.file, tc.req.Capability, c.Tool, got, tc.tool, want)
		}
	}
}

// The false-hold case of issue 31: a Playwright MCP fork that calls the element "ref" gets "ref".
func TestForkThatCallsTheElementRef(t *testing.T) {
	tools := []Tool{
		{Name: "browser_navigate", InputSchema: json.RawMessage(`{"type":"object","properties":{"url":{"type":"string"}},"required":["url"]}`)},
		{Name: "browser_snapshot", InputSchema: json.RawMessage(`{"type":"object"}`)},
		{Name: "browser_click", InputSchema: json.RawMessage(`{"type":"object","properties":{"element":{"type":"string","description":"Human-readable element description used to obtain permission"},"ref":{"type":"string","description":"Exact target element reference from the page snapshot"}},"required":["element","ref"]}`)},
	}
	m, err := New(tools)
	if err != nil {
		t.Fatal(err)
	}
	c, err := m.Map(Request{Capability: Click, Element: button})
	if err != nil || !reflect.DeepEqual(c.Args, map[string]any{"ref": "e2", "element": `button "Elimina pratica"`}) {
		t.Fatalf("Map = %+v, %v; want ref and element", c, err)
	}
}

func TestElementKinds(t *testing.T) {
	for _, tc := range []struct {
		props string
		want  map[string]any
	}{
		{`{"target":{"type":"string","description":"element reference"}}`, map[string]any{"target": "e2"}},
		{`{"element":{"type":"string","description":"the ref of the element"}}`, map[string]any{"element": "e2"}},
		{`{"selector":{"type":"string"}}`, map[string]any{"selector": "#elimina"}},
		{`{"uid":{"type":"string"}}`, map[string]any{"uid": "1_2"}},
		{`{"index":{"type":"integer"}}`, map[string]any{"index": 3}},
		{`{"instruction":{"type":"string","description":"what to do, in words"}}`, map[string]any{"instruction": `click button "Elimina pratica"`}},
		// a list of selector objects: the best handle a shape takes alone (here no ref shape: the css one)
		{`{"selectors":{"type":"array","items":{"anyOf":[{"type":"object","properties":{"role":{"type":"string"},"text":{"type":"string"}},"required":["role"]},{"type":"object","properties":{"css":{"type":"string"}},"required":["css"]}]}}}`,
			map[string]any{"selectors": []any{map[string]any{"css": "#elimina"}}}},
		{`{"targets":{"type":"array","items":{"type":"object","properties":{"uid":{"type":"string"}},"required":["uid"]}}}`,
			map[string]any{"targets": []any{map[string]any{"uid": "1_2"}}}},
	} {
		tools := []Tool{
			{Name: "goto", InputSchema: json.RawMessage(`{"properties":{"url":{"type":"string"}}}`)},
			{Name: "read_page"},
			{Name: "click", InputSchema: json.RawMessage(`{"properties":` + tc.props + `}`)},
		}
		m, err := New(tools)
		if err != nil {
			t.Fatalf("%s: %v", tc.props, err)
		}
		c, err := m.Map(Request{Capability: Click, Element: button})
		if err != nil || !reflect.DeepEqual(c.Args, tc.want) {
			t.Errorf("%s: Map = %#v, %v; want %#v", tc.props, c.Args, err, tc.want)
		}
	}
	// A selector tool given an element with a role and name but no selector: Playwright's role engine.
	m, _ := New([]Tool{{Name: "navigate", InputSchema: json.RawMessage(`{"properties":{"url":{}}}`)}, {Name: "get_text"},
		{Name: "click", InputSchema: json.RawMessage(`{"properties":{"selector":{"type":"string"}},"required":["selector"]}`)}})
	c, err := m.Map(Request{Capability: Click, Element: Element{Role: "button", Name: "Elimina"}})
	if err != nil || c.Args["selector"] != `role=button[name="Elimina"]` {
		t.Errorf("role selector = %v, %v", c.Args, err)
	}
	// An index tool given an element the page state gave no index for: an error, never a guess.
	m, _ = New([]Tool{{Name: "navigate", InputSchema: json.RawMessage(`{"properties":{"url":{}}}`)}, {Name: "get_text"},
		{Name: "click", InputSchema: json.RawMessage(`{"properties":{"index":{"type":"number"}}}`)}})
	if _, err := m.Map(Request{Capability: Click, Element: Element{Ref: "e2", Role: "button"}}); err == nil || !strings.Contains(err.Error(), "index") {
		t.Errorf("index without an index = %v, want an error naming it", err)
	}
}

func TestMissingCapability(t *testing.T) {
	for _, tc := range []struct {
		tools []Tool
		want  Capability
	}{
		{[]Tool{{Name: "browser_snapshot"}, {Name: "browser_click", InputSchema: json.RawMessage(`{"properties":{"ref":{}}}`)}}, Navigate},
		{[]Tool{{Name: "browser_navigate", InputSchema: json.RawMessage(`{"properties":{"url":{}}}`)}, {Name: "browser_snapshot"}}, Click},
		{[]Tool{{Name: "navigate", InputSchema: json.RawMessage(`{"properties":{"url":{}}}`)}, {Name: "click", InputSchema: json.RawMessage(`{"properties":{"ref":{}}}`)}, {Name: "take_screenshot"}}, Snapshot},
		// a click whose required argument trapline cannot fill is no click
		{[]Tool{{Name: "navigate", InputSchema: json.RawMessage(`{"properties":{"url":{}}}`)}, {Name: "snapshot"},
			{Name: "click", InputSchema: json.RawMessage(`{"properties":{"ref":{},"sessionToken":{}},"required":["ref","sessionToken"]}`)}}, Click},
	} {
		_, err := New(tc.tools)
		var me *MissingError
		if !errors.As(err, &me) || me.Capability != tc.want || !strings.Contains(err.Error(), string(tc.want)) {
			t.Errorf("New(%v) = %v, want a MissingError naming %s", tc.tools, err, tc.want)
		}
	}
	// @tontoko/fast-playwright-mcp 0.2.0's default (adaptive) catalog: navigate and snapshot, the
	// rest behind browser_tools/browser_execute; no click among the tools offered.
	var me *MissingError
	if _, err := New(loadTools(t, "tontoko-fast-playwright-mcp-0.2.0")); !errors.As(err, &me) || me.Capability != Click {
		t.Errorf("the adaptive catalog = %v, want a MissingError naming click", err)
	}
	if _, err := New([]Tool{{Name: "x", InputSchema: json.RawMessage(`{not json`)}}); err == nil || !strings.Contains(err.Error(), `"x"`) {
		t.Errorf("a bad schema = %v, want an error naming the tool", err)
	}
}

// Tools that look alike but do something else are never chosen: an HTTP GET is no navigation, a
// screenshot no snapshot, a page selector no select.
func TestLookAlikesAreNotChosen(t *testing.T) {
	m, err := New(loadTools(t, "executeautomation-playwright-mcp-server-1.0.12"))
	if err != nil {
		t.Fatal(err)
	}
	if b, _ := m.Binding(Navigate); b.Tool != "playwright_navigate" {
		t.Errorf("navigate = %s", b.Tool)
	}
	if b, _ := m.Binding(Click); b.Tool != "playwright_click" {
		t.Errorf("click = %s", b.Tool)
	}
	m, err = New(loadTools(t, "chrome-devtools-mcp-1.11.0"))
	if err != nil {
		t.Fatal(err)
	}
	if m.Offers(Select) {
		b, _ := m.Binding(Select)
		t.Errorf("chrome-devtools-mcp select = %s (select_page is no option select)", b.Tool)
	}
}

// A tool catalog that hides the click until the model enables it (@tontoko/fast-playwright-mcp's
// adaptive profile) is found with the call that enables every group; a tool list without one is not.
func TestEnableCall(t *testing.T) {
	c, ok := EnableCall(loadTools(t, "tontoko-fast-playwright-mcp-0.2.0"))
	groups, _ := c.Args["groups"].([]any)
	if !ok || c.Tool != "browser_tools" || c.Args["action"] != "enable" || !slices.Contains(groups, any("interaction")) {
		t.Fatalf("EnableCall = %+v, %v; want browser_tools enable with every group", c, ok)
	}
	for _, f := range []string{"playwright-mcp-0.0.83", "chrome-devtools-mcp-1.11.0", "agent-infra-mcp-server-browser-1.2.29"} {
		if c, ok := EnableCall(loadTools(t, f)); ok {
			t.Errorf("%s: EnableCall = %+v, want none", f, c)
		}
	}
}
