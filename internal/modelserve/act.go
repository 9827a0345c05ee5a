package modelserve

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"

	"github.com/trapline/trapline/agentkit/action"
	"github.com/trapline/trapline/agentkit/observe"
	"github.com/trapline/trapline/agentkit/planner"
	"github.com/trapline/trapline/internal/toolmap"
)

// Stagehand's act() (4.4.0) offers the model no tool: it sends its element tree in the prompt and
// asks for a structured answer to its "Act" schema, {action: {elementId, description, method,
// arguments} | null, twoStep}, which its runtime then performs. That answer is a call of the agent's
// own tool, elementId its element argument: the endpoint plays it like any other tool call, the
// planner choosing from the elements of the tree the request carries. Without a tree it is still a
// bare schema (schemaOnly: 422).

// isActSchema reports whether a response format's schema is Stagehand's act schema: an object whose
// "action" property is (or may be, through anyOf) an object with elementId and method.
func isActSchema(raw json.RawMessage) bool {
	var sc struct {
		Schema     json.RawMessage            `json:"schema"`
		Properties map[string]json.RawMessage `json:"properties"`
	}
	if json.Unmarshal(raw, &sc) != nil {
		return false
	}
	if sc.Properties == nil && len(sc.Schema) > 0 {
		return isActSchema(sc.Schema)
	}
	act, ok := sc.Properties["action"]
	if !ok {
		return false
	}
	var a struct {
		Properties map[string]json.RawMessage `json:"properties"`
		AnyOf      []struct {
			Properties map[string]json.RawMessage `json:"properties"`
		} `json:"anyOf"`
	}
	if json.Unmarshal(act, &a) != nil {
		return false
	}
	props := []map[string]json.RawMessage{a.Properties}
	for _, o := range a.AnyOf {
		props = append(props, o.Properties)
	}
	for _, p := range props {
		_, id := p["elementId"]
		_, method := p["method"]
		if id && method {
			return true
		}
	}
	return false
}

// actMethods is the act schema's method for each planner move that targets an element.
var actMethods = map[action.Kind]string{
	action.Click: "click", action.Fill: "fill", action.Select: "selectOptionFromDropdown",
	action.Press: "press", action.Hover: "hover",
}

// decideAct plays one act() request: the planner over the request's element tree, its move written
// as the act schema's answer. A move act() cannot make (open a URL, read the page) is not made and
// the planner is told so, as for a tool the agent does not offer.
func (s *Server) decideAct(ctx context.Context, t turn) (decision, int, string) {
	st, err := toolmap.ParseTree(t.prompt + "\n" + t.pageState)
	if err != nil {
		return decision{}, http.StatusUnprocessableEntity, schemaOnly(t) + " (" + err.Error() + ")"
	}
	obs, err := observe.Parse(observe.NewSnapshotID(), st.URL, st.Aria)
	if err != nil {
		return decision{}, http.StatusUnprocessableEntity, "the element tree in the messages could not be read: " + err.Error()
	}
	goal := s.Goal
	if goal == "" {
		goal = t.prompt
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	a, code, msg := s.propose(ctx, planner.Input{Goal: goal, Observation: obs}, "act()", func(next action.Action) (bool, string) {
		_, ok := actMethods[next.Kind]
		return ok && next.Targets() || next.Kind == action.Done, "not delivered: act() answers only an element of its tree (click, fill, select, press, hover)"
	})
	if code != 0 {
		return decision{}, code, msg
	}
	if a.Kind == action.Done {
		s.history = append(s.history, planner.Step{Action: a, Outcome: "answered to act() as no action"})
		return decision{structured: map[string]any{"action": nil, "twoStep": false}, why: "done: " + a.Reason}, 0, ""
	}
	n, err := obs.Lookup(a.Ref)
	if err != nil {
		return decision{}, http.StatusInternalServerError, "the planner named no element of the tree: " + err.Error()
	}
	el := st.Elements[n.RawRef]
	args := []string{}
	switch a.Kind {
	case action.Fill, action.Select:
		args = []string{a.Value}
	case action.Press:
		args = []string{a.Key}
	}
	method := actMethods[a.Kind]
	s.history = append(s.history, planner.Step{Action: a, Outcome: "proposed to the agent as act " + method + " " + el.UID})
	answer := map[string]any{
		"action":  map[string]any{"elementId": el.UID, "description": strings.TrimSpace(el.Describe()), "method": method, "arguments": args},
		"twoStep": false,
	}
	return decision{structured: answer, actTool: "act " + method, why: a.Reason + "; act()'s element " + el.UID + " (" + el.Describe() + ")"}, 0, ""
}
