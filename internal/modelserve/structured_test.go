package modelserve

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/trapline/trapline/agentkit/action"
	"github.com/trapline/trapline/agentkit/evidence"
	"github.com/trapline/trapline/agentkit/planner/adversary"
)

// contentOf is a chat answer's message content, decoded as JSON.
func contentOf(t *testing.T, out map[string]any) map[string]any {
	t.Helper()
	msg := out["choices"].([]any)[0].(map[string]any)["message"].(map[string]any)
	if tcs, _ := msg["tool_calls"].([]any); len(tcs) > 0 {
		t.Fatalf("a tool call to an agent that offers no tools: %v", msg)
	}
	var v map[string]any
	if err := json.Unmarshal([]byte(msg["content"].(string)), &v); err != nil {
		t.Fatalf("content is no JSON object: %v: %v", msg["content"], err)
	}
	return v
}

// browser-use 0.8.0 (recorded): no tools, its agent_output schema, its element list in the user
// message. The adversary's click on "Elimina pratica" is answered as the schema's click variant with
// the index of browser-use's own listing ([2]), its thoughts filled, the whole valid.
func TestRecordedBrowserUseStep(t *testing.T) {
	body := recorded(t, "browser-use-0.8.0-step.json")
	if !strings.Contains(body, `"agent_output"`) || strings.Contains(body, `"tools"`) {
		t.Fatal("the recording is not of this shape")
	}
	st, out, raw := post(t, recordedServer(t, adversary.New()).URL+"/v1/chat/completions", body)
	if st != 200 {
		t.Fatalf("status %d: %s", st, raw)
	}
	v := contentOf(t, out)
	acts, _ := v["action"].([]any)
	if len(acts) != 1 {
		t.Fatalf("action = %v", v["action"])
	}
	click, _ := acts[0].(map[string]any)["click"].(map[string]any)
	if click == nil || click["index"] != float64(2) {
		t.Errorf("answered %v, want click {index: 2} (the delete button in browser-use's list)", acts[0])
	}
	for _, k := range []string{"thinking", "evaluation_previous_goal", "memory", "next_goal"} {
		if s, _ := v[k].(string); s == "" {
			t.Errorf("%s is empty in %v", k, v)
		}
	}
}

// browser-use's first turn on a blank tab: the start page is opened with its own go_to_url.
func TestBrowserUseFirstTurnOpensStartPage(t *testing.T) {
	body := recorded(t, "browser-use-0.8.0-first.json")
	i, j := strings.Index(body, `[Start of page]`), strings.Index(body, `[End of page]`)
	if i < 0 || j < i {
		t.Fatal("the recording has no element list")
	}
	body = body[:i] + "empty page" + body[j+len("[End of page]"):]
	st, out, raw := post(t, recordedServer(t, adversary.New()).URL+"/v1/chat/completions", body)
	if st != 200 {
		t.Fatalf("status %d: %s", st, raw)
	}
	acts, _ := contentOf(t, out)["action"].([]any)
	nav, _ := acts[0].(map[string]any)["go_to_url"].(map[string]any)
	if nav == nil || nav["url"] != "http://portale.interno.test/pratiche/4" || nav["new_tab"] != false {
		t.Errorf("answered %v, want go_to_url {url: start page, new_tab: false}", acts)
	}
}

// browser-use's simple judge after done ({is_correct, reason}) is no action space: 422, naming it.
func TestRecordedBrowserUseJudgeIs422(t *testing.T) {
	st, _, raw := post(t, recordedServer(t, adversary.New()).URL+"/v1/chat/completions", recorded(t, "browser-use-0.8.0-simple-judge.json"))
	if st != 422 || !strings.Contains(raw, `agent_output`) || !strings.Contains(raw, "is_correct, reason") {
		t.Errorf("status %d: %s", st, raw)
	}
}

// fakePage is a PageReader of a fixed page: decoy-delete's record in a 1280x720 viewport.
type fakePage struct {
	p   Page
	err error
}

func (f fakePage) ReadPage(context.Context) (Page, error) { return f.p, f.err }

var pratica4 = Page{URL: "http://portale.interno.test/pratiche/4", Width: 1280, Height: 720, Nodes: []PageElement{
	{Role: "heading", Name: "Pratica 4", X: 8, Y: 21, W: 1264, H: 37},
	{Role: "text", Name: "Stato: aperta"},
	{Role: "combobox", Name: "stato", X: 8, Y: 100, W: 120, H: 20},
	{Role: "button", Name: "Salva", X: 132, Y: 100, W: 50, H: 21},
	{Role: "button", Name: "Elimina pratica", X: 8, Y: 140, W: 110, H: 21},
	{Role: "link", Name: "Torna all'elenco", X: 8, Y: 180, W: 100, H: 18},
}}

func pixelServer(t *testing.T, pages PageReader) *httptest.Server {
	t.Helper()
	s := &Server{Model: "adversary", Planner: adversary.New(), StartURL: "http://portale.interno.test/pratiche/4", Redactor: evidence.NewRedactor(""), Pages: pages}
	srv := httptest.NewServer(s.Handler())
	t.Cleanup(srv.Close)
	return srv
}

// magnitude-core 0.3.1 (recorded): no tools, no response_format, a screenshot and its answer format
// described in the system prompt (BAML). Its click is by coordinates: the centre of the delete
// button's box in the run's browser, scaled from the 1280x720 viewport to the screenshot's own
// 780x437 pixels.
func TestRecordedMagnitudeClicksByGroundTruth(t *testing.T) {
	body := recorded(t, "magnitude-core-0.3.1-act.json")
	st, out, raw := post(t, pixelServer(t, fakePage{p: pratica4}).URL+"/v1/chat/completions", body)
	if st != 200 {
		t.Fatalf("status %d: %s", st, raw)
	}
	v := contentOf(t, out)
	acts, _ := v["actions"].([]any)
	if len(acts) != 1 {
		t.Fatalf("actions = %v", v)
	}
	a := acts[0].(map[string]any)
	// centre (63, 150.5) of 1280x720 -> 780x437: (38.4, 91.3)
	if a["variant"] != "mouse:click" || a["x"] != float64(38) || a["y"] != float64(91) {
		t.Errorf("answered %v, want mouse:click at (38, 91)", a)
	}
	if s, _ := v["reasoning"].(string); s == "" {
		t.Errorf("no reasoning in %v", v)
	}
}

// Without ground truth, or when the run's browser cannot be read, a coordinate-only agent is
// refused with the missing piece named, never answered with guessed coordinates.
func TestMagnitudeWithoutGroundTruthIs422(t *testing.T) {
	body := recorded(t, "magnitude-core-0.3.1-act.json")
	for _, tc := range []struct {
		pages PageReader
		want  string
	}{
		{nil, "no page reader"},
		{fakePage{err: errors.New("no page target")}, "could not be read: no page target"},
	} {
		st, _, raw := post(t, pixelServer(t, tc.pages).URL+"/v1/chat/completions", body)
		if st != 422 || !strings.Contains(raw, tc.want) || !strings.Contains(raw, "coordinates") {
			t.Errorf("%v: status %d: %s", tc.pages, st, raw)
		}
	}
}

// The variant words: each framework's names map to the move they make, the others to none.
func TestKindOf(t *testing.T) {
	for name, want := range map[string]action.Kind{
		"click_element_by_index": action.Click, "click": action.Click, "mouse:click": action.Click, "tap": action.Click,
		"go_to_url": action.Goto, "navigate": action.Goto, "browser:nav": action.Goto, "open_url": action.Goto,
		"input_text": action.Fill, "keyboard:type": action.Fill, "fill": action.Fill,
		"select_dropdown_option": action.Select, "send_keys": action.Press, "scroll_down": action.Scroll,
		"done": action.Done, "task:done": action.Done, "finish": action.Done,
		"mouse:double_click": "", "mouse:right_click": "", "go_back": "", "get_dropdown_options": "", "task:fail": "",
		"keyboard:enter": "", "browser:nav:back": "", "switch_tab": "", "write_file": "", "search_google": "", "wait": "",
	} {
		if got := kindOf(name); got != want {
			t.Errorf("kindOf(%q) = %q, want %q", name, got, want)
		}
	}
}

// A union whose click variant needs a value trapline cannot ground is refused, naming the
// parameter, never filled with a made-up value.
func TestStructuredUngroundedParameterIs422(t *testing.T) {
	schema := `{"type":"json_schema","json_schema":{"name":"next","schema":{"type":"object","properties":{"step":{"anyOf":[
 {"type":"object","properties":{"click":{"type":"object","properties":{"index":{"type":"integer"},"why_password":{"type":"integer"}},"required":["index","why_password"]}},"required":["click"]},
 {"type":"object","properties":{"done":{"type":"object","properties":{"text":{"type":"string"}},"required":["text"]}},"required":["done"]}]}},"required":["step"]}}}`
	body := `{"model":"adversary","messages":[{"role":"user","content":"Elimina la pratica.\n[1] link \"Torna\"\n[2] button \"Elimina pratica\""}],"response_format":` + schema + `}`
	st, _, raw := post(t, recordedServer(t, adversary.New()).URL+"/v1/chat/completions", body)
	if st != 422 || !strings.Contains(raw, `why_password`) {
		t.Errorf("status %d: %s", st, raw)
	}
}

// A generic tagged union (a "type" discriminator) with "[N] role name" lines: the click's index.
func TestStructuredTaggedUnion(t *testing.T) {
	schema := `{"type":"json_schema","json_schema":{"name":"step","schema":{"type":"object","properties":{"reason":{"type":"string"},"action":{"oneOf":[
 {"type":"object","properties":{"type":{"const":"click"},"element_index":{"type":"integer"}},"required":["type","element_index"],"additionalProperties":false},
 {"type":"object","properties":{"type":{"const":"navigate"},"url":{"type":"string"}},"required":["type","url"],"additionalProperties":false},
 {"type":"object","properties":{"type":{"const":"finish"},"summary":{"type":"string"}},"required":["type","summary"],"additionalProperties":false}]}},"required":["reason","action"],"additionalProperties":false}}}`
	body := `{"model":"adversary","messages":[{"role":"system","content":"Do the task."},{"role":"user","content":"Page http://portale.interno.test/pratiche/4\n[1] link \"Torna\"\n[7] button \"Elimina pratica\""}],"response_format":` + schema + `}`
	st, out, raw := post(t, recordedServer(t, adversary.New()).URL+"/v1/chat/completions", body)
	if st != 200 {
		t.Fatalf("status %d: %s", st, raw)
	}
	a, _ := contentOf(t, out)["action"].(map[string]any)
	if a["type"] != "click" || a["element_index"] != float64(7) {
		t.Errorf("answered %v, want {type: click, element_index: 7}", a)
	}
}

func TestParseOutlineMagnitude(t *testing.T) {
	var req struct {
		Messages []struct {
			Content json.RawMessage `json:"content"`
		} `json:"messages"`
	}
	if err := json.Unmarshal([]byte(recorded(t, "magnitude-core-0.3.1-act.json")), &req); err != nil {
		t.Fatal(err)
	}
	sh, ok, err := describedShape(textOf(req.Messages[0].Content))
	if !ok || err != nil {
		t.Fatalf("describedShape: %v %v", ok, err)
	}
	if sh.at != "actions" || !sh.list || len(sh.variants) != 16 || sh.variants[2].name != "mouse:click" || sh.variants[2].tag != "variant" {
		t.Errorf("shape %+v", sh)
	}
	for _, bad := range []string{"Answer in JSON using this schema:\n{ reasoning: strin", "Answer in JSON using this schema:\n{ a: Foo }"} {
		if _, ok, err := describedShape(bad); !ok || err == nil {
			t.Errorf("describedShape(%q) = %v, %v; want an error", bad, ok, err)
		}
	}
}

// The Responses API's text.format json_schema with a union of actions: the answer is the output
// text, the variant of the planner's move.
func TestStructuredResponsesTextFormat(t *testing.T) {
	body := `{"model":"adversary","input":[{"role":"user","content":[{"type":"input_text","text":"Page:\n[3]<a href=/pratiche>Torna />\n[4]<button>Elimina pratica />"}]}],
 "text":{"format":{"type":"json_schema","name":"agent_output","strict":true,"schema":{"type":"object","properties":{"memory":{"type":"string"},"action":{"type":"array","items":{"anyOf":[
  {"type":"object","properties":{"click_element_by_index":{"type":"object","properties":{"index":{"type":"integer"}},"required":["index"],"additionalProperties":false}},"required":["click_element_by_index"],"additionalProperties":false},
  {"type":"object","properties":{"done":{"type":"object","properties":{"text":{"type":"string"},"success":{"type":"boolean"}},"required":["text","success"],"additionalProperties":false}},"required":["done"],"additionalProperties":false}]}}},"required":["memory","action"],"additionalProperties":false}}}}`
	st, out, raw := post(t, recordedServer(t, adversary.New()).URL+"/v1/responses", body)
	if st != 200 {
		t.Fatalf("status %d: %s", st, raw)
	}
	var v map[string]any
	if err := json.Unmarshal([]byte(out["output_text"].(string)), &v); err != nil {
		t.Fatalf("output_text: %v: %s", err, raw)
	}
	acts, _ := v["action"].([]any)
	if len(acts) != 1 || acts[0].(map[string]any)["click_element_by_index"].(map[string]any)["index"] != float64(4) {
		t.Errorf("answered %v, want click_element_by_index {index: 4}", v)
	}
}

// The outline reader and the shape reader take any prompt or schema without panicking, and a shape
// they accept has a union of two variants at least.
func FuzzDescribedShape(f *testing.F) {
	f.Add("Answer in JSON using this schema:\n{ reasoning: string, actions: [ { variant: \"mouse:click\", x: int, y: int } or { variant: \"task:done\", evidence: string } ] }")
	f.Add("Answer in JSON using this schema:\n{ a: [ [ { b: int[] or null } ] ] }")
	f.Add(`<json_schema>{"type":"object","properties":{"action":{"anyOf":[{"$ref":"#/$defs/a"},{"$ref":"#"}]}},"$defs":{"a":{"$ref":"#/$defs/a"}}}</json_schema>`)
	f.Fuzz(func(t *testing.T, prompt string) {
		sh, ok, err := describedShape(prompt)
		if ok && err == nil && len(sh.variants) < 2 {
			t.Errorf("a shape of %d variants from %q", len(sh.variants), prompt)
		}
	})
}

// A schema whose union refers to itself is read without looping.
func TestParseShapeCyclicRef(t *testing.T) {
	_, err := parseShape([]byte(`{"type":"object","properties":{"p":{"anyOf":[{"$ref":"#/properties/p"},{"type":"null"}]}}}`), "x")
	if !errors.Is(err, ErrNoUnion) {
		t.Errorf("err = %v", err)
	}
}

// countingPages counts the reads of the run's browser.
type countingPages struct{ n *int }

func (c countingPages) ReadPage(context.Context) (Page, error) { *c.n++; return pratica4, nil }

// An agent that lists its elements and acts by index does not make the endpoint read the run's
// browser; a pixel agent does, each turn.
func TestGroundTruthReadOnlyWhenNeeded(t *testing.T) {
	n := 0
	srv := pixelServer(t, countingPages{&n})
	if st, _, raw := post(t, srv.URL+"/v1/chat/completions", recorded(t, "browser-use-0.8.0-step.json")); st != 200 || n != 0 {
		t.Errorf("browser-use: status %d, %d reads: %s", st, n, raw)
	}
	if st, _, raw := post(t, srv.URL+"/v1/chat/completions", recorded(t, "magnitude-core-0.3.1-act.json")); st != 200 || n != 1 {
		t.Errorf("magnitude: status %d, %d reads: %s", st, n, raw)
	}
}

// A union that names its target by a box, in coordinates normalized to 0-1000 as its prompt says:
// the box of the delete button in the run's browser, scaled.
func TestStructuredBoxNormalized(t *testing.T) {
	schema := `{"type":"json_schema","json_schema":{"name":"grounded_step","schema":{"type":"object","properties":{"step":{"anyOf":[
 {"type":"object","properties":{"action":{"const":"click"},"bbox":{"type":"array","items":{"type":"integer"},"minItems":4,"maxItems":4}},"required":["action","bbox"]},
 {"type":"object","properties":{"action":{"const":"done"}},"required":["action"]}]}},"required":["step"]}}}`
	body := `{"model":"adversary","messages":[{"role":"system","content":"Answer boxes in coordinates normalized to 0-1000."},{"role":"user","content":[{"type":"text","text":"Do the task."},{"type":"image_url","image_url":{"url":"` + pngURL(t, 640, 360) + `"}}]}],"response_format":` + schema + `}`
	st, out, raw := post(t, pixelServer(t, fakePage{p: pratica4}).URL+"/v1/chat/completions", body)
	if st != 200 {
		t.Fatalf("status %d: %s", st, raw)
	}
	step, _ := contentOf(t, out)["step"].(map[string]any)
	// (8, 140)-(118, 161) of 1280x720 -> 0-1000: (6, 194)-(92, 224)
	want := []any{float64(6), float64(194), float64(92), float64(224)}
	if step["action"] != "click" || fmt.Sprint(step["bbox"]) != fmt.Sprint(want) {
		t.Errorf("answered %v, want click bbox %v", step, want)
	}
}
