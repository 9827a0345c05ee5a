package modelserve

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/trapline/trapline/internal/toolmap"
)

type chatMessage struct {
	Role       string            `json:"role"`
	Content    json.RawMessage   `json:"content"`
	ToolCalls  []json.RawMessage `json:"tool_calls"`
	ToolCallID string            `json:"tool_call_id"`
}

type chatRequest struct {
	Model    string        `json:"model"`
	Messages []chatMessage `json:"messages"`
	Tools    []struct {
		Type     string `json:"type"`
		Function struct {
			Name        string          `json:"name"`
			Description string          `json:"description"`
			Parameters  json.RawMessage `json:"parameters"`
		} `json:"function"`
	} `json:"tools"`
	ToolChoice     json.RawMessage `json:"tool_choice"`
	Stream         bool            `json:"stream"`
	ResponseFormat *struct {
		Type       string          `json:"type"`
		JSONSchema json.RawMessage `json:"json_schema"`
	} `json:"response_format"`
}

// forced is the tool a tool_choice names ({"type":"function","function":{"name":...}}), "none" for
// no tool, "" for the model's choice.
func forced(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		if s == "none" {
			return "none"
		}
		return ""
	}
	var o struct {
		Name     string `json:"name"`
		Function struct {
			Name string `json:"name"`
		} `json:"function"`
	}
	if json.Unmarshal(raw, &o) == nil {
		if o.Function.Name != "" {
			return o.Function.Name
		}
		return o.Name
	}
	return ""
}

// choose applies a tool_choice to the tools offered: none for "none", the one it names (when offered),
// all of them otherwise.
func choose(tools []toolmap.Tool, toolChoice json.RawMessage) []toolmap.Tool {
	name := forced(toolChoice)
	if name == "none" {
		return nil
	}
	if name == "" {
		return tools
	}
	for _, t := range tools {
		if t.Name == name {
			return []toolmap.Tool{t}
		}
	}
	return tools
}

// user takes a user message: the first (users is how many came before) is part of the task's
// prompt; one that holds a page snapshot is the page state.
func (t *turn) user(text string, users int) {
	if users == 0 {
		t.prompt += text + "\n"
	}
	if looksLikeSnapshot(text) {
		t.pageState, t.hasResults = text, true
	}
}

// chat serves POST /v1/chat/completions: the turn its messages hold, decided and answered as one
// assistant message (a call of the agent's tool or the final answer), streamed or not.
func (s *Server) chat(w http.ResponseWriter, r *http.Request) {
	var req chatRequest
	body, ok := s.readBody(w, r, &req)
	if !ok {
		return
	}
	if !s.admitModel(w, r, req.Model, body) {
		return
	}
	t, bad := chatTurn(req)
	if bad != nil {
		s.fail(w, r, http.StatusBadRequest, bad.code, bad.msg, body)
		return
	}
	d, status, msg := s.decide(r.Context(), t)
	if status != 0 {
		s.fail(w, r, status, "cannot_play", msg, body)
		return
	}
	message, finish := chatAnswer(t, d)
	s.log(record{Path: r.URL.Path, Model: req.Model, Status: 200, Request: body, Answer: message, Tool: d.tool(), Why: d.why})
	s.writeChat(w, req.Stream, message, finish)
}

// badRequest is a request the endpoint cannot read (a 400): its error code and what is wrong.
type badRequest struct{ code, msg string }

// chatTurn reads a Chat Completions request into the endpoint's turn: its tools after tool_choice,
// the task and page state of its messages, and the JSON schema its response_format asks for.
func chatTurn(req chatRequest) (turn, *badRequest) {
	var t turn
	if len(req.Messages) == 0 {
		return t, &badRequest{"no_messages", "the request has no messages"}
	}
	for _, tl := range req.Tools {
		if tl.Function.Name == "" {
			return t, &badRequest{"invalid_tool", "a tool has no function name"}
		}
		t.tools = append(t.tools, toolmap.Tool{Name: tl.Function.Name, Description: tl.Function.Description, InputSchema: tl.Function.Parameters})
	}
	t.tools = choose(t.tools, req.ToolChoice)
	users := 0
	for _, m := range req.Messages {
		text := textOf(m.Content)
		t.images = append(t.images, imagesOf(m.Content)...)
		switch m.Role {
		case "system", "developer":
			t.prompt += text + "\n"
		case "user":
			t.user(text, users)
			users++
		case "tool":
			t.pageState, t.hasResults = text, true
		case "assistant":
			if len(m.ToolCalls) > 0 {
				t.hasResults = true
			}
		}
	}
	if rf := req.ResponseFormat; rf != nil && (rf.Type == "json_schema" || rf.Type == "json_object") {
		t.schema = rf.JSONSchema
		if len(t.schema) == 0 || string(t.schema) == "null" {
			t.schema = json.RawMessage(`{}`) // JSON wanted, of no given shape
		}
	}
	return t, nil
}

// tool is the move a decision makes, for the log: the agent's tool it calls, or the act schema's move.
func (d decision) tool() string {
	if d.call != nil {
		return d.call.Tool
	}
	return d.actTool
}

// finalText is a decision's final answer as text: the JSON of the variant of the agent's own action
// union (structured.go), else of the schema the request asks for, else the planner's words.
func finalText(t turn, d decision) string {
	switch {
	case d.structured != nil:
		return structuredText(d.structured)
	case len(t.schema) > 0:
		b, _ := json.Marshal(schemaValue(t.schema, d, 0))
		return string(b)
	}
	return d.text
}

// chatAnswer writes a decision as the assistant message and its finish reason: a call of the agent's
// tool (even when the request also asks for a schema-shaped final answer), or the final answer.
func chatAnswer(t turn, d decision) (map[string]any, string) {
	if d.call != nil {
		args, _ := json.Marshal(d.call.Args)
		return map[string]any{"role": "assistant", "content": nil, "tool_calls": []any{map[string]any{"id": callID(), "type": "function",
			"function": map[string]any{"name": d.call.Tool, "arguments": string(args)}}}}, "tool_calls"
	}
	return map[string]any{"role": "assistant", "content": finalText(t, d)}, "stop"
}

// writeChat answers a Chat Completions request with one message: a completion, or its two chunks
// (the message as a delta, then the finish reason) and [DONE] when streamed.
func (s *Server) writeChat(w http.ResponseWriter, stream bool, message map[string]any, finish string) {
	id := "chatcmpl-" + callID()
	if !stream {
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{"id": id, "object": "chat.completion", "created": time.Now().Unix(), "model": s.Model,
			"choices": []any{map[string]any{"index": 0, "message": message, "finish_reason": finish}},
			"usage":   map[string]any{"prompt_tokens": 0, "completion_tokens": 0, "total_tokens": 0}})
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	delta := map[string]any{"role": "assistant"}
	if tc, ok := message["tool_calls"].([]any); ok {
		c := tc[0].(map[string]any)
		delta["tool_calls"] = []any{map[string]any{"index": 0, "id": c["id"], "type": "function", "function": c["function"]}}
	} else {
		delta["content"] = message["content"]
	}
	chunk := func(delta any, finish any) map[string]any {
		return map[string]any{"id": id, "object": "chat.completion.chunk", "created": time.Now().Unix(), "model": s.Model,
			"choices": []any{map[string]any{"index": 0, "delta": delta, "finish_reason": finish}}}
	}
	writeSSE(w, "", chunk(delta, nil))
	writeSSE(w, "", chunk(map[string]any{}, finish))
	fmt.Fprint(w, "data: [DONE]\n\n")
}

type responsesRequest struct {
	Model        string          `json:"model"`
	Input        json.RawMessage `json:"input"`
	Instructions string          `json:"instructions"`
	Tools        []struct {
		Type        string          `json:"type"`
		Name        string          `json:"name"`
		Description string          `json:"description"`
		Parameters  json.RawMessage `json:"parameters"`
	} `json:"tools"`
	ToolChoice json.RawMessage `json:"tool_choice"`
	Stream     bool            `json:"stream"`
	Text       *struct {
		Format json.RawMessage `json:"format"`
	} `json:"text"`
}

// responses serves POST /v1/responses: computer use by coordinates (computer.go), or the turn its
// input holds, decided and answered as one output item (a function call or the final answer).
func (s *Server) responses(w http.ResponseWriter, r *http.Request) {
	var req responsesRequest
	body, ok := s.readBody(w, r, &req)
	if !ok {
		return
	}
	if !s.admitModel(w, r, req.Model, body) {
		return
	}
	if ct, ok := computerToolOf(body); ok { // OpenAI's computer use: answered by coordinates (computer.go)
		s.computerUse(w, r, req, body, ct)
		return
	}
	t, bad := responsesTurn(req)
	if bad != nil {
		s.fail(w, r, http.StatusBadRequest, bad.code, bad.msg, body)
		return
	}
	d, status, msg := s.decide(r.Context(), t)
	if status != 0 {
		s.fail(w, r, status, "cannot_play", msg, body)
		return
	}
	item, outputText := responseItem(t, d)
	s.log(record{Path: r.URL.Path, Model: req.Model, Status: 200, Request: body, Answer: item, Tool: d.tool(), Why: d.why})
	s.writeResponse(w, req.Stream, item, outputText)
}

// responsesTurn reads a Responses request into the endpoint's turn: its function tools after
// tool_choice, the task and page state of its input, and the JSON schema its text.format asks for.
func responsesTurn(req responsesRequest) (turn, *badRequest) {
	t := turn{prompt: req.Instructions + "\n"}
	for _, tl := range req.Tools {
		if tl.Type != "" && tl.Type != "function" {
			continue // hosted tools (web search, computer use) are not the agent's own
		}
		if tl.Name == "" {
			return t, &badRequest{"invalid_tool", "a function tool has no name"}
		}
		t.tools = append(t.tools, toolmap.Tool{Name: tl.Name, Description: tl.Description, InputSchema: tl.Parameters})
	}
	t.tools = choose(t.tools, req.ToolChoice)
	if bad := t.readInput(req.Input); bad != nil {
		return t, bad
	}
	if req.Text != nil && len(req.Text.Format) > 0 {
		if bad := t.readTextFormat(req.Text.Format); bad != nil {
			return t, bad
		}
	}
	return t, nil
}

// readInput takes a Responses input: a string (the task, or a page state), or a list of items
// (messages, function calls and their outputs).
func (t *turn) readInput(raw json.RawMessage) *badRequest {
	var input string
	if json.Unmarshal(raw, &input) == nil {
		t.prompt += input
		if looksLikeSnapshot(input) {
			t.pageState, t.hasResults = input, true
		}
		return nil
	}
	var items []struct {
		Type    string          `json:"type"`
		Role    string          `json:"role"`
		Content json.RawMessage `json:"content"`
		Output  json.RawMessage `json:"output"`
	}
	if err := json.Unmarshal(raw, &items); err != nil {
		return &badRequest{"invalid_input", "input is neither a string nor a list of items: " + err.Error()}
	}
	users := 0
	for _, it := range items {
		t.images = append(t.images, imagesOf(it.Content)...)
		switch {
		case it.Type == "function_call_output":
			t.pageState, t.hasResults = textOf(it.Output), true
		case it.Type == "function_call":
			t.hasResults = true
		case it.Role == "system" || it.Role == "developer":
			t.prompt += textOf(it.Content) + "\n"
		case it.Role == "user":
			t.user(textOf(it.Content), users)
			users++
		}
	}
	return nil
}

// readTextFormat takes a Responses text.format: a json_schema or json_object format is the schema
// the answer must fit (JSON of no given shape when it has none); any other format asks for text.
func (t *turn) readTextFormat(raw json.RawMessage) *badRequest {
	var f struct {
		Type   string          `json:"type"`
		Name   string          `json:"name"`
		Schema json.RawMessage `json:"schema"`
	}
	if err := json.Unmarshal(raw, &f); err != nil {
		return &badRequest{"invalid_format", "text.format is no JSON object: " + err.Error()}
	}
	if f.Type == "json_schema" || f.Type == "json_object" {
		t.schema, t.schemaName = f.Schema, f.Name
		if len(t.schema) == 0 {
			t.schema = json.RawMessage(`{}`) // a schema format with no schema still asks for JSON
		}
	}
	return nil
}

// responseItem writes a decision as the answer's output item and output_text: a function call of the
// agent's tool (even when the request also asks for a schema-shaped final answer), or a message
// holding the final answer.
func responseItem(t turn, d decision) (map[string]any, string) {
	if d.call != nil {
		args, _ := json.Marshal(d.call.Args)
		return map[string]any{"type": "function_call", "id": "fc_" + callID(), "call_id": callID(), "name": d.call.Tool,
			"arguments": string(args), "status": "completed"}, ""
	}
	text := finalText(t, d)
	return map[string]any{"type": "message", "id": "msg_" + callID(), "role": "assistant", "status": "completed",
		"content": []any{map[string]any{"type": "output_text", "text": text, "annotations": []any{}}}}, text
}

// Describe says in one line what the endpoint serves, for the run's output.
func Describe(baseURL, model string) string {
	return strings.Join([]string{"model endpoint", baseURL, "plays", model}, " ")
}

// admitModel answers 404 naming the model this endpoint plays when the request asks for another.
func (s *Server) admitModel(w http.ResponseWriter, r *http.Request, model string, body []byte) bool {
	if s.knownModel(model) {
		return true
	}
	s.fail(w, r, http.StatusNotFound, "model_not_found", fmt.Sprintf("unknown model %q: this endpoint plays %q", model, s.Model), body)
	return false
}
