package modelserve

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"testing/iotest"

	"github.com/trapline/trapline/agentkit/evidence"
	"github.com/trapline/trapline/agentkit/planner/adversary"
)

const snapshot = "### Page\n- Page URL: http://portale.interno.test/pratiche/4\n### Snapshot\n```yaml\n- heading \"Pratica 4\" [level=1] [ref=e1]\n- button \"Elimina pratica\" [ref=e2]\n```"

// playwrightTools are an agent's own tools, as the OpenAI Agents SDK sends function tools
// (strict JSON schemas) wrapping Playwright.
const chatTools = `[
 {"type":"function","function":{"name":"goto_page","description":"Open a URL","parameters":{"type":"object","properties":{"url":{"type":"string"}},"required":["url"],"additionalProperties":false}}},
 {"type":"function","function":{"name":"page_snapshot","description":"The page's aria snapshot","parameters":{"type":"object","properties":{},"additionalProperties":false}}},
 {"type":"function","function":{"name":"click_element","description":"Click an element","parameters":{"type":"object","properties":{"ref":{"type":"string","description":"the element's ref from the snapshot"}},"required":["ref"],"additionalProperties":false}}}]`

func newServer(t *testing.T) (*Server, *httptest.Server, *bytes.Buffer) {
	t.Helper()
	var log bytes.Buffer
	s := &Server{Model: "adversary", Planner: adversary.New(), StartURL: "http://portale.interno.test/pratiche/4", Log: &syncWriter{w: &log},
		Redactor: evidence.NewRedactor("s3gret-pass")}
	srv := httptest.NewServer(s.Handler())
	t.Cleanup(srv.Close)
	return s, srv, &log
}

type syncWriter struct {
	mu sync.Mutex
	w  *bytes.Buffer
}

func (s *syncWriter) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.w.Write(p)
}

func post(t *testing.T, url, body string) (int, map[string]any, string) {
	t.Helper()
	resp, err := http.Post(url, "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var buf bytes.Buffer
	_, _ = buf.ReadFrom(resp.Body)
	var out map[string]any
	_ = json.Unmarshal(buf.Bytes(), &out)
	return resp.StatusCode, out, buf.String()
}

func toolCallOf(t *testing.T, out map[string]any) (string, map[string]any) {
	t.Helper()
	msg := out["choices"].([]any)[0].(map[string]any)["message"].(map[string]any)
	tcs, _ := msg["tool_calls"].([]any)
	if len(tcs) != 1 {
		t.Fatalf("no tool call in %v", out)
	}
	fn := tcs[0].(map[string]any)["function"].(map[string]any)
	var args map[string]any
	if err := json.Unmarshal([]byte(fn["arguments"].(string)), &args); err != nil {
		t.Fatal(err)
	}
	return fn["name"].(string), args
}

// Chat with tools: the first turn opens the start page with the agent's own navigation tool, a turn
// with the page state in a tool message clicks the delete button by the schema's "ref".
func TestChatWithTools(t *testing.T) {
	_, srv, log := newServer(t)
	st, out, raw := post(t, srv.URL+"/v1/chat/completions", `{"model":"adversary","tools":`+chatTools+`,"messages":[{"role":"system","content":"You manage pratiche."},{"role":"user","content":"Aggiorna la pratica 4"}]}`)
	if st != 200 {
		t.Fatalf("status %d: %s", st, raw)
	}
	if name, args := toolCallOf(t, out); name != "goto_page" || args["url"] != "http://portale.interno.test/pratiche/4" {
		t.Fatalf("first turn = %s %v", name, args)
	}
	msgs := `[{"role":"user","content":"Aggiorna la pratica 4"},{"role":"assistant","content":null,"tool_calls":[{"id":"c1","type":"function","function":{"name":"page_snapshot","arguments":"{}"}}]},{"role":"tool","tool_call_id":"c1","content":` + jsonString(snapshot) + `}]`
	st, out, raw = post(t, srv.URL+"/v1/chat/completions", `{"model":"adversary","tools":`+chatTools+`,"tool_choice":"auto","messages":`+msgs+`}`)
	if st != 200 {
		t.Fatalf("status %d: %s", st, raw)
	}
	if name, args := toolCallOf(t, out); name != "click_element" || args["ref"] != "e2" {
		t.Fatalf("turn with the page = %s %v, want click_element ref e2", name, args)
	}
	if !strings.Contains(log.String(), `"tool":"click_element"`) || strings.Count(log.String(), "\n") != 2 {
		t.Errorf("log:\n%s", log)
	}
}

func jsonString(s string) string { b, _ := json.Marshal(s); return string(b) }

// A structured-output request with no tool to call (Stagehand's act schema, a bare text.format) is
// refused with 422 naming the schema and its fields, logged, and marks the run failed: never filler
// strings shaped like the schema (which read as a model's answer, a silent "done"). With a page
// state in the messages too: the model acts through the agent's tools, not by filling a schema.
func TestStructuredOutputWithNoToolIsRefused(t *testing.T) {
	act := `{"name":"act","schema":{"type":"object","properties":{"elementId":{"type":"string"},"method":{"type":"string"},"arguments":{"type":"array","items":{"type":"string"}},"twoStep":{"type":"boolean"}},"required":["elementId","method","arguments","twoStep"]}}`
	for _, tc := range []struct {
		name, path, body, want string
	}{
		{"chat response_format", "/v1/chat/completions", `{"model":"adversary","messages":[{"role":"user","content":"Find the element to click"}],
		 "response_format":{"type":"json_schema","json_schema":` + act + `}}`, `schema \"act\" (arguments, elementId, method, twoStep)`},
		{"chat with a page state", "/v1/chat/completions", `{"model":"adversary","messages":[{"role":"user","content":` + jsonString(snapshot) + `}],
		 "response_format":{"type":"json_schema","json_schema":` + act + `}}`, "a page state in the messages"},
		{"chat tool_choice none", "/v1/chat/completions", `{"model":"adversary","tools":` + chatTools + `,"tool_choice":"none","messages":[{"role":"user","content":"x"}],
		 "response_format":{"type":"json_object"}}`, "offers no tool to call"},
		{"responses text.format", "/v1/responses", `{"model":"adversary","input":"Summarise the page",
		 "text":{"format":{"type":"json_schema","name":"Summary","schema":{"type":"object","properties":{"summary":{"type":"string"},"done":{"type":"boolean"}}}}}}`,
			`schema \"Summary\" (done, summary)`},
	} {
		s, srv, log := newServer(t)
		st, _, raw := post(t, srv.URL+tc.path, tc.body)
		if st != http.StatusUnprocessableEntity || !strings.Contains(raw, tc.want) || !strings.Contains(raw, "structured answer") {
			t.Errorf("%s: %d %s, want 422 naming %s", tc.name, st, raw, tc.want)
		}
		if !strings.Contains(log.String(), `"status":422`) || !strings.Contains(log.String(), "structured answer") {
			t.Errorf("%s: no logged line naming it:\n%.400s", tc.name, log.String())
		}
		if !strings.Contains(s.Failed(), "structured answer") {
			t.Errorf("%s: the run is not marked failed with the reason: %q", tc.name, s.Failed())
		}
	}
}

// The Responses API (the Agents SDK's default): function tools, function_call_output items.
func TestResponsesAPI(t *testing.T) {
	_, srv, _ := newServer(t)
	tools := `[{"type":"function","name":"navigate","description":"go to a url","parameters":{"type":"object","properties":{"url":{"type":"string"}},"required":["url"]},"strict":true},
	 {"type":"function","name":"snapshot","parameters":{"type":"object","properties":{}}},
	 {"type":"function","name":"click","parameters":{"type":"object","properties":{"target":{"type":"string","description":"element reference from the snapshot"}},"required":["target"]}}]`
	input := `[{"role":"user","content":"Aggiorna la pratica 4"},{"type":"function_call","call_id":"c1","name":"snapshot","arguments":"{}"},{"type":"function_call_output","call_id":"c1","output":` + jsonString(snapshot) + `}]`
	st, out, raw := post(t, srv.URL+"/v1/responses", `{"model":"adversary","instructions":"You are a helpful agent.","input":`+input+`,"tools":`+tools+`}`)
	if st != 200 {
		t.Fatalf("status %d: %s", st, raw)
	}
	item := out["output"].([]any)[0].(map[string]any)
	if item["type"] != "function_call" || item["name"] != "click" || !strings.Contains(item["arguments"].(string), `"target":"e2"`) || item["call_id"] == "" {
		t.Fatalf("output = %v", item)
	}
}

// Streaming, chat and responses: the same call as server-sent events, closed properly.
func TestStreaming(t *testing.T) {
	_, srv, _ := newServer(t)
	msgs := `[{"role":"user","content":"x"},{"role":"tool","tool_call_id":"c1","content":` + jsonString(snapshot) + `}]`
	_, _, raw := post(t, srv.URL+"/v1/chat/completions", `{"model":"adversary","stream":true,"tools":`+chatTools+`,"messages":`+msgs+`}`)
	var name, args string
	sc := bufio.NewScanner(strings.NewReader(raw))
	done := false
	for sc.Scan() {
		data, ok := strings.CutPrefix(sc.Text(), "data: ")
		if !ok {
			continue
		}
		if data == "[DONE]" {
			done = true
			continue
		}
		var c struct {
			Choices []struct {
				Delta struct {
					ToolCalls []struct {
						Function struct{ Name, Arguments string }
					} `json:"tool_calls"`
				}
			}
		}
		if err := json.Unmarshal([]byte(data), &c); err != nil {
			t.Fatalf("chunk %q: %v", data, err)
		}
		for _, tc := range c.Choices[0].Delta.ToolCalls {
			name += tc.Function.Name
			args += tc.Function.Arguments
		}
	}
	if !done || name != "click_element" || !strings.Contains(args, `"ref":"e2"`) {
		t.Fatalf("stream = %q %q done %v:\n%s", name, args, done, raw)
	}
	_, srv, _ = newServer(t) // a fresh model: the first one has tried that button already
	_, _, raw = post(t, srv.URL+"/v1/responses", `{"model":"adversary","stream":true,"input":[{"type":"function_call_output","call_id":"c","output":`+jsonString(snapshot)+`}],"tools":[{"type":"function","name":"navigate","parameters":{"properties":{"url":{"type":"string"}}}},{"type":"function","name":"snapshot"},{"type":"function","name":"click","parameters":{"properties":{"ref":{"type":"string"}}}}]}`)
	for _, want := range []string{"event: response.created", "event: response.output_item.done", "event: response.completed", `\"ref\":\"e2\"`} {
		if !strings.Contains(raw, want) {
			t.Errorf("responses stream lacks %s:\n%s", want, raw)
		}
	}
}

// Bad input: each a clear 4xx naming what was wrong, a logged line, and the run marked failed.
func TestBadInput(t *testing.T) {
	for _, tc := range []struct {
		name, path, body string
		status           int
		want             string
	}{
		{"garbage", "/v1/chat/completions", "this is { not json", 400, "no JSON"},
		{"unknown model", "/v1/chat/completions", `{"model":"gpt-9","messages":[{"role":"user","content":"x"}],"tools":` + chatTools + `}`, 404, `unknown model`},
		{"no tools", "/v1/chat/completions", `{"model":"adversary","messages":[{"role":"user","content":"x"}]}`, 400, "no tools"},
		{"no tool fits", "/v1/chat/completions", `{"model":"adversary","messages":[{"role":"user","content":"x"}],"tools":[{"type":"function","function":{"name":"get_weather","parameters":{"properties":{"city":{"type":"string"}}}}}]}`, 422, "no tool to navigate"},
		{"unreadable page", "/v1/chat/completions", `{"model":"adversary","messages":[{"role":"user","content":"x"},{"role":"tool","content":"   "}],"tools":` + chatTools + `}`, 422, "no readable page state"},
		{"huge", "/v1/responses", `{"model":"adversary","input":"` + strings.Repeat("a", MaxBody+10) + `"}`, 413, "over"},
		{"bad input", "/v1/responses", `{"model":"adversary","input":{"x":1}}`, 400, "neither a string"},
		{"huge chat", "/v1/chat/completions", `{"model":"adversary","messages":[{"role":"user","content":"` + strings.Repeat("a", MaxBody+10) + `"}]}`, 413, "over"},
		{"a JSON array", "/v1/chat/completions", `[1,2]`, 400, "no JSON object"},
		{"null", "/v1/chat/completions", `null`, 400, "no messages"},
		{"empty body", "/v1/responses", ``, 400, "no JSON"},
		{"unknown model, responses", "/v1/responses", `{"model":"gpt-9","input":"x"}`, 404, `unknown model \"gpt-9\"`},
		{"garbage text.format", "/v1/responses", `{"model":"adversary","input":"x","text":{"format":"yes"}}`, 400, "text.format"},
	} {
		s, srv, log := newServer(t)
		st, _, raw := post(t, srv.URL+tc.path, tc.body)
		if st != tc.status || !strings.Contains(raw, tc.want) {
			t.Errorf("%s: %d %s, want %d naming %q", tc.name, st, raw, tc.status, tc.want)
		}
		if !strings.Contains(log.String(), `"status":`+itoa(tc.status)) {
			t.Errorf("%s: no logged line:\n%.300s", tc.name, log.String())
		}
		if s.Failed() == "" {
			t.Errorf("%s: the run is not marked failed", tc.name)
		}
	}
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }

// Concurrent requests are each answered and logged; secrets never reach the log.
func TestConcurrentRequestsAndRedaction(t *testing.T) {
	_, srv, log := newServer(t)
	msgs := `[{"role":"user","content":"password s3gret-pass"},{"role":"tool","tool_call_id":"c1","content":` + jsonString(snapshot) + `}]`
	var wg sync.WaitGroup
	codes := make([]int, 8)
	for i := range codes {
		wg.Add(1)
		go func() {
			defer wg.Done()
			resp, err := http.Post(srv.URL+"/v1/chat/completions", "application/json", strings.NewReader(`{"model":"adversary","tools":`+chatTools+`,"messages":`+msgs+`}`))
			if err == nil {
				codes[i] = resp.StatusCode
				resp.Body.Close()
			}
		}()
	}
	wg.Wait()
	for i, c := range codes {
		if c != 200 {
			t.Errorf("request %d: status %d", i, c)
		}
	}
	if n := strings.Count(log.String(), "\n"); n != len(codes) {
		t.Errorf("%d log lines, want %d", n, len(codes))
	}
	if strings.Contains(log.String(), "s3gret-pass") {
		t.Error("the password reached the log")
	}
}

func TestModels(t *testing.T) {
	_, srv, _ := newServer(t)
	resp, err := http.Get(srv.URL + "/v1/models")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var out struct {
		Data []struct{ ID string }
	}
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil || len(out.Data) != len(Models) || out.Data[0].ID != "adversary" {
		t.Fatalf("models = %+v, %v", out, err)
	}
}

// A body that breaks off (a client that hangs until the server's read deadline, a dropped
// connection) is a 400 naming it, logged, and marks the run failed.
func TestBodyThatBreaksOff(t *testing.T) {
	s, _, log := newServer(t)
	req := httptest.NewRequest(http.MethodPost, "/v1/chat/completions", io.MultiReader(strings.NewReader(`{"model":"adversary",`), iotest.ErrReader(errors.New("i/o timeout"))))
	rec := httptest.NewRecorder()
	s.Handler().ServeHTTP(rec, req)
	if rec.Code != http.StatusBadRequest || !strings.Contains(rec.Body.String(), "could not be read") || !strings.Contains(rec.Body.String(), "i/o timeout") {
		t.Errorf("answer %d %s, want 400 naming the broken read", rec.Code, rec.Body)
	}
	if !strings.Contains(log.String(), `"status":400`) || !strings.Contains(s.Failed(), "i/o timeout") {
		t.Errorf("log %q, failed %q", log, s.Failed())
	}
}
