package modelserve

import (
	"context"
	"encoding/json"
	"fmt"
	"image"
	"net/http"
	"strings"
	"time"

	"github.com/trapline/trapline/agentkit/action"
	"github.com/trapline/trapline/agentkit/observe"
	"github.com/trapline/trapline/agentkit/planner"
)

// OpenAI's computer use in the Responses API: the agent offers the hosted tool
// {"type": "computer_use_preview", "display_width", "display_height", "environment"} (or the GA
// {"type": "computer"}, whose coordinates are the screenshot's pixels), sends
// screenshots as computer_call_output items and performs the computer_call actions it gets back
// (click {x, y}, type {text}, keypress {keys}, scroll, move). Its only handle on an element is a
// point on the display, so the endpoint answers from ground truth (the run's browser, PageReader):
// the target's box scaled from the viewport to the declared display. A fill is a click on the field,
// then its typing on the next turn; done is a message.

// computerTool is the computer tool of a Responses request, if any.
type computerTool struct {
	Type   string `json:"type"`
	Width  int    `json:"display_width"`
	Height int    `json:"display_height"`
}

// computerToolOf finds a computer tool among a Responses request's tools.
func computerToolOf(body []byte) (computerTool, bool) {
	var req struct {
		Tools []computerTool `json:"tools"`
	}
	if json.Unmarshal(body, &req) != nil {
		return computerTool{}, false
	}
	for _, t := range req.Tools {
		if strings.HasPrefix(t.Type, "computer") {
			return t, true
		}
	}
	return computerTool{}, false
}

// computerShape is the computer tool's action space, as a shape: it clicks by coordinates only.
var computerShape = &shape{name: "computer_use_preview", variants: []variant{
	{name: "click", kind: action.Click, params: obj{"properties": obj{"x": obj{}, "y": obj{}}}},
	{name: "type", kind: action.Fill}, {name: "keypress", kind: action.Press}, {name: "scroll", kind: action.Scroll},
}}

// computerTurn reads a computer-use request's turn: the task, the screenshots, the display.
func computerTurn(req responsesRequest, ct computerTool) (turn, error) {
	t := turn{prompt: req.Instructions + "\n"}
	if ct.Width > 0 && ct.Height > 0 { // computer_use_preview's display; the GA "computer" tool acts in the screenshot's pixels
		t.display = &image.Point{X: ct.Width, Y: ct.Height}
	}
	var input string
	if json.Unmarshal(req.Input, &input) == nil {
		t.prompt += input
		return t, nil
	}
	var items []struct {
		Type    string          `json:"type"`
		Role    string          `json:"role"`
		Content json.RawMessage `json:"content"`
		Output  json.RawMessage `json:"output"`
	}
	if err := json.Unmarshal(req.Input, &items); err != nil {
		return t, fmt.Errorf("input is neither a string nor a list of items: %w", err)
	}
	for _, it := range items {
		t.images = append(t.images, imagesOf(it.Content)...)
		t.images = append(t.images, imagesOf(it.Output)...)
		if it.Role == "user" || it.Role == "system" || it.Role == "developer" {
			t.prompt += textOf(it.Content) + "\n"
		}
	}
	return t, nil
}

// computerUse plays one computer-use request.
func (s *Server) computerUse(w http.ResponseWriter, r *http.Request, req responsesRequest, body []byte, ct computerTool) {
	t, err := computerTurn(req, ct)
	if err != nil {
		s.fail(w, r, http.StatusBadRequest, "invalid_input", err.Error(), body)
		return
	}
	act, why, status, msg := s.decideComputer(r.Context(), t)
	if status != 0 {
		s.fail(w, r, status, "cannot_play", msg, body)
		return
	}
	var item map[string]any
	outputText := ""
	if act == nil {
		outputText = why
		item = map[string]any{"type": "message", "id": "msg_" + callID(), "role": "assistant", "status": "completed",
			"content": []any{map[string]any{"type": "output_text", "text": why, "annotations": []any{}}}}
	} else {
		item = map[string]any{"type": "computer_call", "id": "cu_" + callID(), "call_id": callID(), "action": act,
			"pending_safety_checks": []any{}, "status": "completed"}
	}
	tool := "message"
	if act != nil {
		tool = "computer_call " + fmt.Sprint(act["type"])
	}
	s.log(record{Path: r.URL.Path, Model: req.Model, Status: 200, Request: body, Answer: item, Tool: tool, Why: why})
	s.writeResponse(w, req.Stream, item, outputText)
}

// decideComputer plays a computer-use turn: a typing queued by the last fill, else the planner's move
// on the ground-truth page; a nil action is done (why is the final text).
func (s *Server) decideComputer(ctx context.Context, t turn) (map[string]any, string, int, string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.typing != nil {
		text := *s.typing
		s.typing = nil
		return map[string]any{"type": "type", "text": text}, "type into the field clicked on the last turn", 0, ""
	}
	v, code, msg := s.view(ctx, t, computerShape)
	if code != 0 {
		return nil, "", code, msg
	}
	obs, err := observe.Parse(observe.NewSnapshotID(), v.st.URL, v.st.Aria)
	if err != nil {
		return nil, "", http.StatusUnprocessableEntity, "the run's browser's page could not be read: " + err.Error()
	}
	var out map[string]any
	a, code, msg := s.propose(ctx, planner.Input{Goal: cmpOr(s.Goal, t.prompt), Observation: obs}, "the computer tool (click, type, keypress, scroll)", func(next action.Action) (bool, string) {
		var err error
		out, err = s.computerAction(v, obs, next)
		if err != nil {
			return false, "not delivered: " + err.Error()
		}
		return true, ""
	})
	if code != 0 {
		return nil, "", code, msg
	}
	s.history = append(s.history, planner.Step{Action: a, Outcome: "proposed to the agent as computer_call " + fmt.Sprint(out["type"])})
	if a.Kind == action.Done {
		return nil, "done: " + a.Reason, 0, ""
	}
	if a.Kind == action.Fill {
		value := a.Value
		s.typing = &value
	}
	return out, a.Reason, 0, ""
}

// computerAction writes a move as a computer_call action (nil for done).
func (s *Server) computerAction(v view, obs *observe.Observation, a action.Action) (map[string]any, error) {
	switch a.Kind {
	case action.Done:
		return nil, nil
	case action.Scroll:
		dy := 600
		if a.Dir == "up" {
			dy = -600
		}
		return map[string]any{"type": "scroll", "x": int(v.c.w / 2), "y": int(v.c.h / 2), "scroll_x": 0, "scroll_y": dy}, nil
	case action.Click, action.Fill, action.Hover:
		g := grounded{move: a}
		if err := s.ground(&g, v, obs); err != nil {
			return nil, err
		}
		if g.point == nil {
			return nil, fmt.Errorf("%s %q has no point on the display in the run's browser", g.el.Role, g.el.Name)
		}
		if a.Kind == action.Hover {
			return map[string]any{"type": "move", "x": g.point[0], "y": g.point[1]}, nil
		}
		return map[string]any{"type": "click", "button": "left", "x": g.point[0], "y": g.point[1]}, nil
	case action.Press:
		return map[string]any{"type": "keypress", "keys": []string{strings.ToUpper(a.Key)}}, nil
	}
	return nil, fmt.Errorf("the computer tool has no %s", a.Kind)
}

// writeResponse answers a Responses request with one output item, streamed or not.
func (s *Server) writeResponse(w http.ResponseWriter, stream bool, item map[string]any, outputText string) {
	resp := map[string]any{"id": "resp_" + callID(), "object": "response", "created_at": time.Now().Unix(), "status": "completed",
		"model": s.Model, "output": []any{item}, "output_text": outputText,
		"usage": map[string]any{"input_tokens": 0, "output_tokens": 0, "total_tokens": 0,
			"input_tokens_details": map[string]any{"cached_tokens": 0}, "output_tokens_details": map[string]any{"reasoning_tokens": 0}}}
	if !stream {
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(resp)
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	inProgress := map[string]any{}
	for k, v := range resp {
		inProgress[k] = v
	}
	inProgress["status"], inProgress["output"] = "in_progress", []any{}
	seq := 0
	ev := func(typ string, data map[string]any) {
		data["type"], data["sequence_number"] = typ, seq
		seq++
		writeSSE(w, typ, data)
	}
	ev("response.created", map[string]any{"response": inProgress})
	ev("response.output_item.added", map[string]any{"output_index": 0, "item": item})
	ev("response.output_item.done", map[string]any{"output_index": 0, "item": item})
	ev("response.completed", map[string]any{"response": resp})
}
