package modelserve

import (
	"bufio"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/trapline/trapline/agentkit/planner"
	"github.com/trapline/trapline/agentkit/planner/adversary"
)

// agentAnthropicTools are an agent's own tools as the Messages API carries them: input_schema, no type.
const agentAnthropicTools = `[
 {"name":"goto_page","description":"Open a URL","input_schema":{"type":"object","properties":{"url":{"type":"string"}},"required":["url"]}},
 {"name":"page_snapshot","description":"The page's aria snapshot","input_schema":{"type":"object","properties":{}}},
 {"name":"click_element","description":"Click an element","input_schema":{"type":"object","properties":{"ref":{"type":"string","description":"the element's ref from the snapshot"}},"required":["ref"]}}]`

// postAnthropic posts a Messages API request with the headers the SDKs send.
func postAnthropic(t *testing.T, url, body string, headers map[string]string) (int, map[string]any, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("content-type", "application/json")
	req.Header.Set("x-api-key", "trapline-dummy-key")
	req.Header.Set("anthropic-version", "2023-06-01")
	for k, v := range headers {
		if v == "" {
			req.Header.Del(k)
		} else {
			req.Header.Set(k, v)
		}
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var b strings.Builder
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		b.WriteString(sc.Text() + "\n")
	}
	var out map[string]any
	_ = json.Unmarshal([]byte(b.String()), &out)
	return resp.StatusCode, out, b.String()
}

// toolUseOf is the one tool_use block of a Messages API answer.
func toolUseOf(t *testing.T, out map[string]any) (string, map[string]any) {
	t.Helper()
	content, _ := out["content"].([]any)
	if len(content) != 1 || out["type"] != "message" || out["role"] != "assistant" || out["stop_reason"] != "tool_use" {
		t.Fatalf("no single tool_use answer: %v", out)
	}
	b := content[0].(map[string]any)
	if b["type"] != "tool_use" || !strings.HasPrefix(b["id"].(string), "toolu_") {
		t.Fatalf("block = %v", b)
	}
	return b["name"].(string), b["input"].(map[string]any)
}

// The tool_use round trip: the first turn (system as text blocks, a user string) opens the start
// page with the agent's own tool; the turn whose tool_result holds the page's snapshot clicks the
// delete button by the schema's "ref"; each is a line of the call log with the tool chosen.
func TestAnthropicToolUseRoundTrip(t *testing.T) {
	_, srv, log := newServer(t)
	first := `{"model":"adversary","max_tokens":1024,"system":[{"type":"text","text":"You manage pratiche."}],"tools":` + agentAnthropicTools +
		`,"tool_choice":{"type":"auto"},"messages":[{"role":"user","content":"Aggiorna la pratica 4"}]}`
	st, out, raw := postAnthropic(t, srv.URL+"/v1/messages", first, nil)
	if st != 200 {
		t.Fatalf("status %d: %s", st, raw)
	}
	if name, in := toolUseOf(t, out); name != "goto_page" || in["url"] != "http://portale.interno.test/pratiche/4" {
		t.Fatalf("first turn = %s %v", name, in)
	}
	msgs := `[{"role":"user","content":[{"type":"text","text":"Aggiorna la pratica 4"}]},
	 {"role":"assistant","content":[{"type":"text","text":"Reading the page."},{"type":"tool_use","id":"toolu_1","name":"page_snapshot","input":{}}]},
	 {"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_1","content":[{"type":"text","text":` + jsonString(snapshot) + `}]}]}]`
	// The Vercel AI SDK's provider posts to ANTHROPIC_BASE_URL + /messages: the same endpoint.
	st, out, raw = postAnthropic(t, srv.URL+"/messages", `{"model":"adversary","max_tokens":1024,"tools":`+agentAnthropicTools+`,"messages":`+msgs+`}`, nil)
	if st != 200 {
		t.Fatalf("status %d: %s", st, raw)
	}
	if name, in := toolUseOf(t, out); name != "click_element" || in["ref"] != "e2" {
		t.Fatalf("turn with the page = %s %v, want click_element ref e2", name, in)
	}
	for _, want := range []string{`"path":"/v1/messages"`, `"path":"/messages"`, `"tool":"click_element"`, `"stop_reason":"tool_use"`} {
		if !strings.Contains(log.String(), want) {
			t.Errorf("the call log lacks %s:\n%s", want, log)
		}
	}
}

// Streamed, the answer is the Messages API's event sequence, and the tool's input comes whole in
// input_json_delta.
func TestAnthropicStreaming(t *testing.T) {
	_, srv, _ := newServer(t)
	msgs := `[{"role":"user","content":"x"},{"role":"assistant","content":[{"type":"tool_use","id":"toolu_1","name":"page_snapshot","input":{}}]},
	 {"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_1","content":` + jsonString(snapshot) + `}]}]`
	st, _, raw := postAnthropic(t, srv.URL+"/v1/messages", `{"model":"adversary","max_tokens":64,"stream":true,"tools":`+agentAnthropicTools+`,"messages":`+msgs+`}`, nil)
	if st != 200 {
		t.Fatalf("status %d: %s", st, raw)
	}
	var events []string
	var name, partial, stop string
	sc := bufio.NewScanner(strings.NewReader(raw))
	for sc.Scan() {
		if ev, ok := strings.CutPrefix(sc.Text(), "event: "); ok {
			events = append(events, ev)
			continue
		}
		data, ok := strings.CutPrefix(sc.Text(), "data: ")
		if !ok {
			continue
		}
		var e struct {
			Type         string
			ContentBlock struct{ Type, Name string } `json:"content_block"`
			Delta        struct {
				Type        string
				PartialJSON string `json:"partial_json"`
				StopReason  string `json:"stop_reason"`
			}
		}
		if err := json.Unmarshal([]byte(data), &e); err != nil {
			t.Fatalf("event %q: %v", data, err)
		}
		if e.Type != events[len(events)-1] {
			t.Errorf("data type %q under event %q", e.Type, events[len(events)-1])
		}
		name += e.ContentBlock.Name
		if e.Delta.Type == "input_json_delta" {
			partial += e.Delta.PartialJSON
		}
		stop += e.Delta.StopReason
	}
	want := "message_start ping content_block_start content_block_delta content_block_stop message_delta message_stop"
	if strings.Join(events, " ") != want {
		t.Errorf("events = %v, want %s", events, want)
	}
	if name != "click_element" || partial != `{"ref":"e2"}` || stop != "tool_use" {
		t.Errorf("streamed %q %q stop %q:\n%s", name, partial, stop, raw)
	}
}

// A final answer is a text block (end_turn), streamed as text_delta.
func TestAnthropicTextAnswer(t *testing.T) {
	s, srv, _ := newServer(t)
	s.Planner = lazyPlanner(t)
	msgs := `[{"role":"user","content":"x"},{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_1","content":` + jsonString(snapshot) + `}]}]`
	st, out, raw := postAnthropic(t, srv.URL+"/v1/messages", `{"model":"adversary","max_tokens":64,"tools":`+agentAnthropicTools+`,"messages":`+msgs+`}`, nil)
	content, _ := out["content"].([]any)
	if st != 200 || out["stop_reason"] != "end_turn" || len(content) != 1 || content[0].(map[string]any)["type"] != "text" {
		t.Fatalf("status %d: %s", st, raw)
	}
	_, _, raw = postAnthropic(t, srv.URL+"/v1/messages", `{"model":"adversary","max_tokens":64,"stream":true,"tools":`+agentAnthropicTools+`,"messages":`+msgs+`}`, nil)
	for _, want := range []string{`"content_block":{"text":"","type":"text"}`, `"type":"text_delta"`, `"stop_reason":"end_turn"`} {
		if !strings.Contains(raw, want) {
			t.Errorf("stream lacks %s:\n%s", want, raw)
		}
	}
}

// What cannot be played is refused in Anthropic's error shape, naming the field or the shape, and
// marks the run failed: a computer-use tool alone (pixel coordinates, not grounded), no tools, no
// anthropic-version header, no max_tokens, an unknown model.
func TestAnthropicRefusals(t *testing.T) {
	computer := `[{"type":"computer_20250124","name":"computer","display_width_px":1280,"display_height_px":800,"display_number":1},{"type":"bash_20250124","name":"bash"}]`
	user := `"messages":[{"role":"user","content":"Aggiorna la pratica 4"}]`
	for _, tc := range []struct {
		name, body string
		headers    map[string]string
		status     int
		errType    string
		want       string
	}{
		{"computer use only", `{"model":"adversary","max_tokens":64,"tools":` + computer + `,` + user + `}`, nil, 422, "invalid_request_error",
			`computer-use tool (computer_20250124 \"computer\", display 1280x800)`},
		{"computer use 2024", `{"model":"adversary","max_tokens":64,"tools":[{"type":"computer_20241022","name":"computer","display_width_px":1024,"display_height_px":768}],` + user + `}`, nil, 422,
			"invalid_request_error", "left_click with coordinate [x, y]"},
		{"no tools", `{"model":"adversary","max_tokens":64,` + user + `}`, nil, 400, "invalid_request_error", "offers no tools"},
		{"tool_choice none", `{"model":"adversary","max_tokens":64,"tools":` + agentAnthropicTools + `,"tool_choice":{"type":"none"},` + user + `}`, nil, 400, "invalid_request_error", "offers no tools"},
		{"no version header", `{"model":"adversary","max_tokens":64,"tools":` + agentAnthropicTools + `,` + user + `}`, map[string]string{"anthropic-version": ""}, 400,
			"invalid_request_error", "anthropic-version header is missing"},
		{"no max_tokens", `{"model":"adversary","tools":` + agentAnthropicTools + `,` + user + `}`, nil, 400, "invalid_request_error", "max_tokens"},
		{"bad content", `{"model":"adversary","max_tokens":64,"tools":` + agentAnthropicTools + `,"messages":[{"role":"user","content":7}]}`, nil, 400, "invalid_request_error", "messages.0.content"},
		{"unknown model", `{"model":"claude-sonnet-4-5","max_tokens":64,"tools":` + agentAnthropicTools + `,` + user + `}`, nil, 404, "not_found_error", `unknown model \"claude-sonnet-4-5\"`},
		{"garbage", `{"model":`, nil, 400, "invalid_request_error", "no JSON object"},
	} {
		s, srv, log := newServer(t)
		st, out, raw := postAnthropic(t, srv.URL+"/v1/messages", tc.body, tc.headers)
		e, _ := out["error"].(map[string]any)
		if st != tc.status || out["type"] != "error" || e["type"] != tc.errType || !strings.Contains(raw, tc.want) {
			t.Errorf("%s: %d %s, want %d %s naming %s", tc.name, st, raw, tc.status, tc.errType, tc.want)
		}
		if s.Failed() == "" || !strings.Contains(log.String(), `"path":"/v1/messages"`) {
			t.Errorf("%s: not marked failed (%q) or not logged:\n%s", tc.name, s.Failed(), log)
		}
	}
}

// A computer-use tool beside tools of the agent's own: the agent's tools are played.
func TestAnthropicComputerToolBesideFunctionTools(t *testing.T) {
	_, srv, _ := newServer(t)
	tools := strings.Replace(agentAnthropicTools, "[", `[{"type":"computer_20250124","name":"computer","display_width_px":1280,"display_height_px":800},`, 1)
	st, out, raw := postAnthropic(t, srv.URL+"/v1/messages", `{"model":"adversary","max_tokens":64,"tools":`+tools+`,"messages":[{"role":"user","content":"x"}]}`, nil)
	if st != 200 {
		t.Fatalf("status %d: %s", st, raw)
	}
	if name, _ := toolUseOf(t, out); name != "goto_page" {
		t.Errorf("answered %s, want the agent's goto_page", name)
	}
}

// tool_choice {type: tool, name} narrows the tools to the one named, as chat's named function does:
// a snapshot tool alone cannot be played (the mapper names what it has).
func TestAnthropicToolChoiceTool(t *testing.T) {
	_, srv, _ := newServer(t)
	st, _, raw := postAnthropic(t, srv.URL+"/v1/messages", `{"model":"adversary","max_tokens":64,"tools":`+agentAnthropicTools+
		`,"tool_choice":{"type":"tool","name":"page_snapshot"},"messages":[{"role":"user","content":"x"}]}`, nil)
	if st != http.StatusUnprocessableEntity || !strings.Contains(raw, "among the tools offered (page_snapshot)") {
		t.Errorf("status %d: %s, want 422 naming page_snapshot alone", st, raw)
	}
}

// The agent gets the endpoint's root as ANTHROPIC_BASE_URL (the SDKs append /v1/messages or
// /messages) and a dummy key, beside OpenAI's variables.
func TestEnvironNamesBothAPIs(t *testing.T) {
	env := strings.Join(Environ("http://127.0.0.1:5/v1"), " ")
	for _, want := range []string{"OPENAI_BASE_URL=http://127.0.0.1:5/v1", "ANTHROPIC_BASE_URL=http://127.0.0.1:5 ", "ANTHROPIC_API_KEY=trapline-dummy-key"} {
		if !strings.Contains(env+" ", want) {
			t.Errorf("Environ lacks %s: %s", want, env)
		}
	}
}

func lazyPlanner(t *testing.T) planner.Planner {
	t.Helper()
	p, err := NewPlanner("lazy", "", nil)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// The Vercel AI SDK's Anthropic provider (@ai-sdk/anthropic 2.0.112, examples/ai-sdk-anthropic) in
// real decoy-delete runs, its third request (after navigate and snapshot ran), streamed and not
// (testdata/recorded/README.md): the adversary answers a tool_use of the agent's own click on the
// delete button, e17.
func TestRecordedAnthropicMessages(t *testing.T) {
	for _, name := range []string{"ai-sdk-anthropic-messages.json", "ai-sdk-anthropic-messages-stream.json"} {
		body := recorded(t, name)
		if !strings.Contains(body, `"tool_result"`) || !strings.Contains(body, `"input_schema"`) || !strings.Contains(body, `"max_tokens"`) {
			t.Fatalf("%s: the recording is not of this shape", name)
		}
		st, out, raw := postAnthropic(t, recordedServer(t, adversary.New()).URL+"/messages", body, nil)
		if st != 200 {
			t.Fatalf("%s: status %d: %s", name, st, raw)
		}
		if !strings.Contains(body, `"stream": true`) {
			n, in := toolUseOf(t, out)
			wantBaitClick(t, n, in)
			continue
		}
		for _, want := range []string{"event: message_start", `"content_block":{"id":"toolu_`, `"name":"click"`,
			`"partial_json":"{\"ref\":\"e17\"}"`, `"stop_reason":"tool_use"`, "event: message_stop"} {
			if !strings.Contains(raw, want) {
				t.Errorf("%s: the stream lacks %s:\n%s", name, want, raw)
			}
		}
	}
}

// GET /v1/models answers an Anthropic client (its anthropic-version header) in the Messages API's
// shape, an OpenAI client in OpenAI's.
func TestModelListInEachAPIsShape(t *testing.T) {
	_, srv, _ := newServer(t)
	for _, version := range []string{"2023-06-01", ""} {
		req, _ := http.NewRequest(http.MethodGet, srv.URL+"/v1/models", nil)
		if version != "" {
			req.Header.Set("anthropic-version", version)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		var out struct {
			Object  string
			HasMore *bool `json:"has_more"`
			Data    []struct{ Type, ID, Object string }
		}
		err = json.NewDecoder(resp.Body).Decode(&out)
		resp.Body.Close()
		if err != nil || len(out.Data) == 0 || out.Data[0].ID != "adversary" {
			t.Fatalf("anthropic-version %q: %+v %v", version, out, err)
		}
		anthropic := out.HasMore != nil && out.Object == "" && out.Data[0].Type == "model"
		openai := out.HasMore == nil && out.Object == "list" && out.Data[0].Object == "model"
		if (version != "" && !anthropic) || (version == "" && !openai) {
			t.Errorf("anthropic-version %q: %+v, want the %s shape", version, out, map[bool]string{true: "Messages API's", false: "OpenAI"}[version != ""])
		}
	}
}

// The Vercel AI SDK's computer-use tool as the provider sends it (testdata/recorded): recognised by
// its type, refused with a 422 naming it and its display, since the endpoint grounds no coordinates.
func TestRecordedAnthropicComputerUseIsNamed(t *testing.T) {
	body := recorded(t, "ai-sdk-anthropic-computer-use.json")
	if !strings.Contains(body, `"computer_20250124"`) {
		t.Fatal("the recording is not of this shape")
	}
	st, out, raw := postAnthropic(t, recordedServer(t, adversary.New()).URL+"/messages", body, map[string]string{"anthropic-beta": "computer-use-2025-01-24"})
	e, _ := out["error"].(map[string]any)
	if st != http.StatusUnprocessableEntity || e["type"] != "invalid_request_error" ||
		!strings.Contains(raw, `computer-use tool (computer_20250124 \"computer\", display 1280x800)`) {
		t.Errorf("status %d: %s", st, raw)
	}
}

// Whatever body comes, the Messages endpoint answers 200 or a 4xx in Anthropic's error shape, never
// a panic or a 5xx. Each input runs the planner, so minimising one is slow: fuzz with
// -fuzzminimizetime 2s (13,000 inputs in 50 s, none failed).
func FuzzAnthropicMessages(f *testing.F) {
	f.Add(`{"model":"adversary","max_tokens":5,"tools":` + agentAnthropicTools + `,"messages":[{"role":"user","content":"x"}]}`)
	f.Add(`{"model":"adversary","max_tokens":5,"stream":true,"tools":` + agentAnthropicTools + `,"messages":[{"role":"user","content":[{"type":"tool_result","tool_use_id":"t","content":` + jsonString(snapshot) + `}]}]}`)
	f.Add(`{"max_tokens":1,"system":7,"tools":[{"type":"computer_20250124"}],"tool_choice":{"type":"tool","name":""},"messages":[{"role":"assistant","content":[{"type":"tool_use"}]}]}`)
	f.Fuzz(func(t *testing.T, body string) {
		s := &Server{Model: "adversary", Planner: adversary.New(), StartURL: "http://portale.interno.test/pratiche/4"}
		req := httptest.NewRequest(http.MethodPost, "/v1/messages", strings.NewReader(body))
		req.Header.Set("anthropic-version", "2023-06-01")
		rec := httptest.NewRecorder()
		s.Handler().ServeHTTP(rec, req)
		switch {
		case rec.Code == http.StatusOK:
		case rec.Code >= 400 && rec.Code < 500:
			var e struct {
				Type  string
				Error struct{ Type, Message string }
			}
			if err := json.Unmarshal(rec.Body.Bytes(), &e); err != nil || e.Type != "error" || e.Error.Message == "" {
				t.Fatalf("%d %s: not Anthropic's error shape (%v)", rec.Code, rec.Body, err)
			}
		default:
			t.Fatalf("status %d for %q: %s", rec.Code, body, rec.Body)
		}
	})
}
