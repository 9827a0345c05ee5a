package modelserve

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"

	"github.com/trapline/trapline/internal/toolmap"
)

// Anthropic's Messages API beside OpenAI's: POST /v1/messages, as the Anthropic SDKs send it (checked
// against @ai-sdk/anthropic 2.0.112's request builder and response schemas, examples/ai-sdk-anthropic):
// the system prompt a top-level field (a string or text blocks), messages of content blocks (text,
// image, tool_use, tool_result), tools with an input_schema, tool_choice {type: auto|any|tool|none},
// stream (server-sent events message_start ... message_stop). The request is read into the same
// turn as chat and responses and answered with the same decision (decide): this file is the wire
// adapter only.
//
// The base URL conventions differ: Anthropic's own SDK appends /v1/messages to ANTHROPIC_BASE_URL
// (https://api.anthropic.com), the Vercel AI SDK's provider appends /messages to it (its default
// https://api.anthropic.com/v1). The endpoint hands out the root and serves both paths (checked with
// @anthropic-ai/sdk 1.17.0's messages.create and messages.stream, and examples/ai-sdk-anthropic).

// anthropicVersionHeader is the header every Messages API request carries (the API refuses one
// without it); x-api-key carries the key, which the endpoint does not check (a dummy one is handed out).
const anthropicVersionHeader = "anthropic-version"

// anthropicPaths are the Messages API's paths the endpoint serves.
var anthropicPaths = []string{"/v1/messages", "/messages"}

// isAnthropicPath says whether a request's errors are answered in Anthropic's shape.
func isAnthropicPath(p string) bool {
	for _, a := range anthropicPaths {
		if p == a || strings.HasPrefix(p, a+"/") {
			return true
		}
	}
	return false
}

type anthropicBlock struct {
	Type      string          `json:"type"`
	Text      string          `json:"text"`
	Name      string          `json:"name"`
	Content   json.RawMessage `json:"content"` // tool_result: a string or text/image blocks
	ToolUseID string          `json:"tool_use_id"`
}

type anthropicMessage struct {
	Role    string          `json:"role"`
	Content json.RawMessage `json:"content"` // a string or blocks
}

type anthropicTool struct {
	Type        string          `json:"type"` // "" or "custom" for a tool of the agent's own; versioned for Anthropic's
	Name        string          `json:"name"`
	Description string          `json:"description"`
	InputSchema json.RawMessage `json:"input_schema"`
	// The computer-use tool's display.
	DisplayWidth  int `json:"display_width_px"`
	DisplayHeight int `json:"display_height_px"`
}

type anthropicRequest struct {
	Model      string             `json:"model"`
	MaxTokens  *int               `json:"max_tokens"`
	System     json.RawMessage    `json:"system"`
	Messages   []anthropicMessage `json:"messages"`
	Tools      []anthropicTool    `json:"tools"`
	ToolChoice *struct {
		Type string `json:"type"`
		Name string `json:"name"`
	} `json:"tool_choice"`
	Stream       bool `json:"stream"`
	OutputFormat *struct {
		Type   string          `json:"type"`
		Schema json.RawMessage `json:"schema"`
	} `json:"output_format"`
}

// blocks reads a content field: a string is one text block.
func blocks(raw json.RawMessage) ([]anthropicBlock, error) {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return []anthropicBlock{{Type: "text", Text: s}}, nil
	}
	var bs []anthropicBlock
	if err := json.Unmarshal(raw, &bs); err != nil {
		return nil, fmt.Errorf("content is neither a string nor a list of blocks: %w", err)
	}
	return bs, nil
}

// isComputerTool says whether a tool is Anthropic's computer-use tool (computer_20241022,
// computer_20250124, and later versions).
func isComputerTool(t anthropicTool) bool { return strings.HasPrefix(t.Type, "computer_") }

// anthropicTurn reads a Messages API request into the endpoint's turn; a request it cannot read is a
// status and a message.
func anthropicTurn(req anthropicRequest) (turn, int, string) {
	var t turn
	if len(req.Messages) == 0 {
		return t, http.StatusBadRequest, "messages: the request has no messages"
	}
	if req.MaxTokens == nil {
		return t, http.StatusBadRequest, "max_tokens: the field is required by the Messages API"
	}
	if len(req.System) > 0 && string(req.System) != "null" {
		sys, err := blocks(req.System)
		if err != nil {
			return t, http.StatusBadRequest, "system: " + err.Error()
		}
		for _, b := range sys {
			t.prompt += b.Text + "\n"
		}
	}
	tools, computer, status, msg := anthropicTools(req)
	if status != 0 {
		return t, status, msg
	}
	t.tools = tools
	if computer != nil && len(t.tools) == 0 {
		return t, http.StatusUnprocessableEntity, computerUnplayable(*computer)
	}
	users := 0
	for i, m := range req.Messages {
		bs, err := blocks(m.Content)
		if err != nil {
			return t, http.StatusBadRequest, fmt.Sprintf("messages.%d.content: %v", i, err)
		}
		var text []string
		for _, b := range bs {
			switch {
			case m.Role == "user" && b.Type == "text":
				text = append(text, b.Text)
			case m.Role == "user" && b.Type == "tool_result":
				t.pageState, t.hasResults = textOf(b.Content), true
			case m.Role == "assistant" && b.Type == "tool_use":
				t.hasResults = true
			}
		}
		if len(text) > 0 { // a user message's text blocks are one message, as chat's text parts are
			t.user(strings.Join(text, "\n"), users)
			users++
		}
	}
	if of := req.OutputFormat; of != nil && of.Type == "json_schema" {
		t.schema = of.Schema
		if len(t.schema) == 0 {
			t.schema = json.RawMessage(`{}`)
		}
	}
	return t, 0, ""
}

// anthropicTools reads the tools a request offers, after its tool_choice: the agent's own (an
// input_schema, no type or "custom"), and the computer-use tool, if offered; Anthropic's other tools
// (bash, text editor, web search) are not the agent's browser and are left out.
func anthropicTools(req anthropicRequest) ([]toolmap.Tool, *anthropicTool, int, string) {
	var tools []toolmap.Tool
	var computer *anthropicTool
	for i, tl := range req.Tools {
		switch {
		case isComputerTool(tl):
			computer = &req.Tools[i]
		case tl.Type != "" && tl.Type != "custom":
			continue
		case tl.Name == "":
			return nil, nil, http.StatusBadRequest, fmt.Sprintf("tools.%d.name: a tool has no name", i)
		default:
			tools = append(tools, toolmap.Tool{Name: tl.Name, Description: tl.Description, InputSchema: tl.InputSchema})
		}
	}
	if tc := req.ToolChoice; tc != nil {
		switch tc.Type {
		case "none":
			return nil, computer, 0, ""
		case "tool":
			return choose(tools, json.RawMessage(fmt.Sprintf(`{"name":%q}`, tc.Name))), computer, 0, ""
		case "auto", "any", "":
		default:
			return nil, nil, http.StatusBadRequest, fmt.Sprintf("tool_choice.type: %q is none of auto, any, tool, none", tc.Type)
		}
	}
	return tools, computer, 0, ""
}

// computerUnplayable says why a request whose only browser tool is Anthropic's computer-use tool is
// refused: its actions are screen coordinates, and the endpoint grounds none.
func computerUnplayable(c anthropicTool) string {
	return fmt.Sprintf("the request offers only Anthropic's computer-use tool (%s %q, display %dx%d): its actions are pixel coordinates "+
		"(left_click with coordinate [x, y], type, key, screenshot) and this endpoint does not ground coordinates; "+
		"offer tools with an input_schema (navigate, snapshot, click by ref) to be played", c.Type, c.Name, c.DisplayWidth, c.DisplayHeight)
}

// messages serves POST /v1/messages (and /messages).
func (s *Server) messages(w http.ResponseWriter, r *http.Request) {
	var req anthropicRequest
	body, ok := s.readBody(w, r, &req)
	if !ok {
		return
	}
	if r.Header.Get(anthropicVersionHeader) == "" {
		s.fail(w, r, http.StatusBadRequest, "missing_header", "the "+anthropicVersionHeader+" header is missing (the Messages API requires it, e.g. 2023-06-01)", body)
		return
	}
	if !s.admitModel(w, r, req.Model, body) {
		return
	}
	t, status, msg := anthropicTurn(req)
	if status != 0 {
		s.fail(w, r, status, "cannot_play", msg, body)
		return
	}
	d, status, msg := s.decide(r.Context(), t)
	if status != 0 {
		s.fail(w, r, status, "cannot_play", msg, body)
		return
	}
	content, stop := anthropicContent(d, t)
	tool := d.actTool
	if d.call != nil {
		tool = d.call.Tool
	}
	msgOut := map[string]any{"id": "msg_" + callID(), "type": "message", "role": "assistant", "model": s.Model,
		"content": content, "stop_reason": stop, "stop_sequence": nil, "usage": map[string]any{"input_tokens": 0, "output_tokens": 0}}
	s.log(record{Path: r.URL.Path, Model: req.Model, Status: 200, Request: body, Answer: msgOut, Tool: tool, Why: d.why})
	if req.Stream {
		streamAnthropic(w, msgOut, content, stop)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(msgOut)
}

// anthropicContent writes a decision as the answer's content blocks and stop reason: a tool_use of
// the agent's own tool, or text (the final answer; JSON of the schema asked for, if one was).
func anthropicContent(d decision, t turn) ([]map[string]any, string) {
	if d.call != nil {
		args := d.call.Args
		if args == nil {
			args = map[string]any{}
		}
		return []map[string]any{{"type": "tool_use", "id": "toolu_" + callID(), "name": d.call.Tool, "input": args}}, "tool_use"
	}
	text := d.text
	switch {
	case d.structured != nil:
		text = structuredText(d.structured)
	case len(t.schema) > 0:
		b, _ := json.Marshal(schemaValue(t.schema, d, 0))
		text = string(b)
	}
	return []map[string]any{{"type": "text", "text": text}}, "end_turn"
}

// streamAnthropic writes the answer as the Messages API's server-sent events: message_start, each
// block's content_block_start, one delta (text_delta, or input_json_delta with the whole input) and
// content_block_stop, then message_delta with the stop reason and message_stop.
func streamAnthropic(w http.ResponseWriter, msg map[string]any, content []map[string]any, stop string) {
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	start := map[string]any{}
	for k, v := range msg {
		start[k] = v
	}
	start["content"], start["stop_reason"] = []any{}, nil
	ev := func(typ string, data map[string]any) {
		data["type"] = typ
		writeSSE(w, typ, data)
	}
	ev("message_start", map[string]any{"message": start})
	ev("ping", map[string]any{})
	for i, b := range content {
		switch b["type"] {
		case "tool_use":
			ev("content_block_start", map[string]any{"index": i, "content_block": map[string]any{"type": "tool_use", "id": b["id"], "name": b["name"], "input": map[string]any{}}})
			in, _ := json.Marshal(b["input"])
			ev("content_block_delta", map[string]any{"index": i, "delta": map[string]any{"type": "input_json_delta", "partial_json": string(in)}})
		default:
			ev("content_block_start", map[string]any{"index": i, "content_block": map[string]any{"type": "text", "text": ""}})
			ev("content_block_delta", map[string]any{"index": i, "delta": map[string]any{"type": "text_delta", "text": b["text"]}})
		}
		ev("content_block_stop", map[string]any{"index": i})
	}
	ev("message_delta", map[string]any{"delta": map[string]any{"stop_reason": stop, "stop_sequence": nil}, "usage": map[string]any{"output_tokens": 0}})
	ev("message_stop", map[string]any{})
}

// anthropicErrorTypes are the Messages API's error types by status.
var anthropicErrorTypes = map[int]string{
	http.StatusBadRequest: "invalid_request_error", http.StatusUnauthorized: "authentication_error",
	http.StatusNotFound: "not_found_error", http.StatusRequestEntityTooLarge: "request_too_large",
	http.StatusUnprocessableEntity: "invalid_request_error", http.StatusInternalServerError: "api_error",
}

// anthropicError is the Messages API's error body.
func anthropicError(status int, msg string) map[string]any {
	typ, ok := anthropicErrorTypes[status]
	if !ok {
		typ = "invalid_request_error"
	}
	return map[string]any{"type": "error", "error": map[string]any{"type": typ, "message": "trapline model: " + msg}}
}

// anthropicModelList is GET /v1/models as the Messages API answers it (to a request with the
// anthropic-version header): {data: [{type: model, id, display_name, created_at}], has_more, first_id,
// last_id}.
func anthropicModelList() map[string]any {
	data := make([]any, 0, len(Models))
	for _, m := range Models {
		data = append(data, map[string]any{"type": "model", "id": m, "display_name": "trapline " + m, "created_at": "1970-01-01T00:00:00Z"})
	}
	return map[string]any{"data": data, "has_more": false, "first_id": Models[0], "last_id": Models[len(Models)-1]}
}

// anthropicEnviron is what an agent on the Messages API gets: the endpoint's root (the SDKs append
// /v1/messages or /messages) and a dummy key.
func anthropicEnviron(baseURL string) []string {
	return []string{"ANTHROPIC_BASE_URL=" + strings.TrimSuffix(baseURL, "/v1"), "ANTHROPIC_API_KEY=trapline-dummy-key"}
}
