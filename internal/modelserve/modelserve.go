// Package modelserve is trapline's OpenAI-compatible model endpoint: an agent framework that owns its
// loop and calls a model API (Stagehand, the OpenAI Agents SDK, LangChain.js, the Vercel ai SDK) gets
// trapline's planner as its model. The endpoint reads the tools the agent offers (their JSON schemas)
// and the page state in the messages, asks the planner for the next action, and answers with a call
// of the agent's own tool through the schema-driven mapper (package toolmap).
//
// It answers POST /v1/chat/completions (tools and tool_choice, streaming and not, response_format
// json_schema: the final answer is JSON of the schema's shape), POST /v1/responses and GET
// /v1/models. A request it cannot play (no tool fits, no readable page state, a structured-output
// request with no tool to call, an unknown model, a body that is no JSON or too large)
// gets a 4xx naming what was missing, and Failed reports it so the run ends broken, never a silent
// "done". Every request and answer is a line of the call log, secrets redacted.
package modelserve

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"image"
	"io"
	"net"
	"net/http"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/trapline/trapline/agentkit/action"
	"github.com/trapline/trapline/agentkit/evidence"
	"github.com/trapline/trapline/agentkit/observe"
	"github.com/trapline/trapline/agentkit/planner"
	"github.com/trapline/trapline/internal/jsonl"
	"github.com/trapline/trapline/internal/toolmap"
)

// CallsFile is the model endpoint's log in a run's agent/ folder.
const CallsFile = "model-calls.jsonl"

// MaxBody bounds one request body: a larger one is refused with 413.
const MaxBody = 8 << 20

// Models are the models the endpoint plays, the names of characters (characters.go).
var Models = characterNames()

// NewPlanner makes the planner for model (one of Models); diligent is the trap's diligent script,
// which the caller supplies.
func NewPlanner(model, password string, diligent func() planner.Planner) (planner.Planner, error) {
	c, ok := characterOf(model)
	if !ok {
		return nil, fmt.Errorf("modelserve: unknown model %q (have %s)", model, strings.Join(Models, ", "))
	}
	if c.diligent && diligent == nil {
		return nil, fmt.Errorf("modelserve: the %s model needs the trap's diligent script", model)
	}
	return c.planner(password, diligent), nil
}

// Server is one run's model endpoint.
type Server struct {
	// Model is the model name the endpoint plays; requests naming another are refused (404).
	Model string
	// Planner decides each turn.
	Planner planner.Planner
	// Goal is the task, when the agent's prompt does not say it.
	Goal string
	// StartURL is where a first turn with no page state navigates.
	StartURL string
	// Log receives one JSON line per request (nil: none).
	Log io.Writer
	// Redactor hides secrets in the log.
	Redactor *evidence.Redactor
	// Pages reads the agent's page from the run's own browser: the ground truth of a coordinate
	// answer (pixels.go). Nil: a request that can only be answered by coordinates is refused.
	Pages PageReader

	mu      sync.Mutex // one decision at a time: concurrent requests are served in turn
	history []planner.Step
	typing  *string               // a computer-use fill's text, typed on the turn after its click (computer.go)
	habit   map[string][2]float64 // a habitual model's points: where each target was first (characters.go)
	failed  atomic.Value          // string: the first request that could not be played
	n       atomic.Int64
	played  atomic.Int64 // the requests to play a turn (chat completions, responses), answered or not
	logMu   sync.Mutex

	// unserved is the first request to an endpoint the server does not serve (string).
	unserved atomic.Value
}

// Failed returns the first request the endpoint could not play ("" when none): a run with one is
// broken.
func (s *Server) Failed() string {
	v, _ := s.failed.Load().(string)
	return v
}

// Played returns how many requests to play a turn (chat completions or responses) the endpoint got,
// answered or refused: a run whose framework never asked the model tested nothing of it.
func (s *Server) Played() int64 { return s.played.Load() }

// Served names the endpoints the server answers, for the messages of a request to another.
const Served = "GET /v1/models, POST /v1/chat/completions, POST /v1/responses, POST /v1/messages"

// Unserved returns the first request to an endpoint the server does not serve ("" when none): an
// agent that called only such endpoints is told which, not that it never called the model.
func (s *Server) Unserved() string {
	v, _ := s.unserved.Load().(string)
	return v
}

// Handler returns the endpoint's HTTP handler.
func (s *Server) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /v1/models", s.models)
	mux.HandleFunc("POST /v1/chat/completions", s.counted(s.chat))
	mux.HandleFunc("POST /v1/responses", s.counted(s.responses))
	for _, p := range anthropicPaths {
		mux.HandleFunc("POST "+p, s.counted(s.messages))
	}
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		s.unserved.CompareAndSwap(nil, r.Method+" "+r.URL.Path)
		s.fail(w, r, http.StatusNotFound, "unknown_endpoint", fmt.Sprintf("no endpoint %s %s (have %s)", r.Method, r.URL.Path, Served), nil)
	})
	return mux
}

func (s *Server) counted(h http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) { s.played.Add(1); h(w, r) }
}

// Listen serves the endpoint on a loopback port of its own and returns its base URL (".../v1").
func (s *Server) Listen(ctx context.Context) (string, func() error, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", nil, fmt.Errorf("modelserve: listen: %w", err)
	}
	srv := &http.Server{Handler: s.Handler(), ReadHeaderTimeout: 10 * time.Second, ReadTimeout: time.Minute,
		BaseContext: func(net.Listener) context.Context { return ctx }}
	go func() { _ = srv.Serve(l) }()
	return "http://" + l.Addr().String() + "/v1", srv.Close, nil
}

// record is one line of the call log.
type record struct {
	V       int             `json:"v"`
	At      time.Time       `json:"at"`
	N       int64           `json:"n"`
	Path    string          `json:"path"`
	Model   string          `json:"model,omitempty"`
	Status  int             `json:"status"`
	Request json.RawMessage `json:"request,omitempty"`
	Answer  any             `json:"answer,omitempty"`
	Tool    string          `json:"tool,omitempty"`
	Why     string          `json:"why,omitempty"`
	Error   string          `json:"error,omitempty"`
}

// maxLogged bounds the part of a body that is no JSON the log keeps; a JSON request is kept whole,
// its images described (withoutImages).
const maxLogged = 64 << 10

func (s *Server) log(r record) {
	if s.Log == nil {
		return
	}
	r.V, r.At, r.N = 1, time.Now().UTC(), s.n.Add(1)
	red := s.Redactor
	if red == nil {
		red = evidence.NewRedactor("")
	}
	if len(r.Request) > 0 {
		switch {
		case json.Valid(r.Request):
			r.Request = withoutImages(r.Request)
		case len(r.Request) > maxLogged:
			r.Request, _ = json.Marshal(string(r.Request[:maxLogged]) + "…")
		default:
			r.Request, _ = json.Marshal(string(r.Request))
		}
		r.Request = json.RawMessage(red.Bytes(r.Request))
	}
	r.Error = red.String(r.Error)
	b, err := json.Marshal(r)
	if err != nil {
		return
	}
	b = jsonl.Bound(red.Bytes(b)) // redacted whole first: a cut never leaves half a secret
	s.logMu.Lock()
	defer s.logMu.Unlock()
	_, _ = s.Log.Write(append(b, '\n'))
}

// fail answers an OpenAI-style error and logs it; a request that could not be played marks the run.
func (s *Server) fail(w http.ResponseWriter, r *http.Request, status int, code, msg string, body []byte) {
	if status != http.StatusNotFound || code != "unknown_endpoint" {
		s.failed.CompareAndSwap(nil, fmt.Sprintf("%s %s: %s", r.Method, r.URL.Path, msg))
	}
	s.log(record{Path: r.URL.Path, Status: status, Request: body, Error: msg})
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	if isAnthropicPath(r.URL.Path) {
		_ = json.NewEncoder(w).Encode(anthropicError(status, msg))
		return
	}
	_ = json.NewEncoder(w).Encode(map[string]any{"error": map[string]any{"message": "trapline model: " + msg, "type": "invalid_request_error", "code": code}})
}

func (s *Server) models(w http.ResponseWriter, r *http.Request) {
	var data []any
	for _, m := range Models {
		data = append(data, map[string]any{"id": m, "object": "model", "created": 0, "owned_by": "trapline"})
	}
	s.log(record{Path: r.URL.Path, Status: 200})
	w.Header().Set("Content-Type", "application/json")
	if r.Header.Get(anthropicVersionHeader) != "" { // an Anthropic client: its list's shape
		_ = json.NewEncoder(w).Encode(anthropicModelList())
		return
	}
	_ = json.NewEncoder(w).Encode(map[string]any{"object": "list", "data": data})
}

// readBody reads a bounded JSON body; a failure has been answered.
func (s *Server) readBody(w http.ResponseWriter, r *http.Request, into any) ([]byte, bool) {
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, MaxBody))
	if err != nil {
		var mb *http.MaxBytesError
		if errors.As(err, &mb) {
			s.fail(w, r, http.StatusRequestEntityTooLarge, "body_too_large", fmt.Sprintf("the request body is over %d bytes", MaxBody), nil)
		} else {
			s.fail(w, r, http.StatusBadRequest, "unreadable_body", "the request body could not be read: "+err.Error(), nil)
		}
		return nil, false
	}
	if err := json.Unmarshal(body, into); err != nil {
		s.fail(w, r, http.StatusBadRequest, "invalid_json", "the request body is no JSON object: "+err.Error(), body)
		return nil, false
	}
	return body, true
}

func (s *Server) knownModel(model string) bool { return model == s.Model || model == "" }

// turn is one request in the endpoint's terms: the tools offered, the page state and prompt in the
// messages, and whether a schema-shaped answer is wanted.
type turn struct {
	tools      []toolmap.Tool
	prompt     string // the system and first user messages: the task
	pageState  string // the latest tool output or user message that holds page state
	hasResults bool   // the agent has called tools before
	schema     json.RawMessage
	schemaName string        // text.format's name (chat's json_schema wrapper carries its own)
	images     []image.Point // the size of each screenshot in the messages, in order (pixels.go)
	display    *image.Point  // a computer tool's display size (pixels.go)
}

// decision is the endpoint's answer to one turn: a call of the agent's own tool, or done.
type decision struct {
	call *toolmap.Call
	text string // the final answer (done)
	why  string
	// structured is a schema's answer the request's own element tree chose (Stagehand's act(),
	// act.go), and actTool the move it is, for the log.
	structured any
	actTool    string
}

// propose asks the planner for its next move until offered accepts one: a move the agent cannot
// make is not made and the planner is told so (offered's outcome), as agentkit's loop tells it of an
// action not delivered; after maxUnofferedMoves such moves in a row it is a 422 naming means. The
// caller holds s.mu; in.History is s.history.
func (s *Server) propose(ctx context.Context, in planner.Input, means string, offered func(action.Action) (bool, string)) (action.Action, int, string) {
	for tries := 0; ; tries++ {
		in.History = s.history
		next, err := s.Planner.Next(ctx, in)
		if errors.Is(err, planner.ErrGaveUp) {
			// A model that cannot go on says so and stops, as agentkit's loop ends a run whose planner
			// gave up (Inconclusive): the agent's run is judged, not broken.
			next, err = action.Action{Kind: action.Done, Reason: err.Error()}, nil
		}
		if err != nil {
			return action.Action{}, http.StatusInternalServerError, "the planner: " + err.Error()
		}
		ok, outcome := offered(next)
		if ok {
			return next, 0, ""
		}
		if tries >= maxUnofferedMoves {
			return action.Action{}, http.StatusUnprocessableEntity, fmt.Sprintf("the planner's %s cannot be made with %s, nor %d other moves in a row", next.Kind, means, maxUnofferedMoves)
		}
		s.history = append(s.history, planner.Step{Action: next, Outcome: outcome})
	}
}

// decide plays one turn: the mapper over the agent's tools, the planner over the page state; a turn
// with no tools is an answer format or refused (decideWithoutTools).
func (s *Server) decide(ctx context.Context, t turn) (decision, int, string) {
	if len(t.tools) == 0 {
		return s.decideWithoutTools(ctx, t)
	}
	m, err := toolmap.New(t.tools)
	if err != nil {
		return decision{}, http.StatusUnprocessableEntity, "the tools offered cannot be played: " + err.Error()
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if !t.hasResults {
		return s.firstCall(m)
	}
	return s.decideOnPage(ctx, t, m)
}

// decideWithoutTools plays a turn that offers no tool: a schema that is a tool call in all but name,
// a union of action objects in a schema or described in the prompt. Anything else is refused.
func (s *Server) decideWithoutTools(ctx context.Context, t turn) (decision, int, string) {
	if len(t.schema) > 0 {
		if isActSchema(t.schema) {
			return s.decideAct(ctx, t) // the schema is a tool call in all but name (act.go)
		}
		if sh, err := parseShape(t.schema, t.schemaName); err == nil {
			return s.decideStructured(ctx, t, sh) // a union of action objects: the agent's action space (structured.go)
		}
		// A bare schema with nothing to call: the model plays a browser agent through the agent's own
		// tools, and filling the schema's fields with words would answer a question it never played
		// (a silent "done"). Refused, naming what was missing.
		return decision{}, http.StatusUnprocessableEntity, schemaOnly(t)
	}
	if sh, ok, err := describedShape(t.prompt); ok {
		if err != nil {
			return decision{}, http.StatusUnprocessableEntity, err.Error()
		}
		return s.decideStructured(ctx, t, sh) // an answer format described in the prompt (described.go)
	}
	return decision{}, http.StatusBadRequest, "the request offers no tools and describes no answer format trapline reads " +
		"(a response_format or text.format schema; in the prompt, a JSON schema, BAML's outline, a line such as click(3), click_element(index=3) or click [3], " +
		"or a record such as <action>click</action><index>3</index>): the model plays a browser agent and needs its tools, or its action space, to act"
}

// firstCall is the call of a turn before any tool result: open the start page, or read the page.
// The caller holds s.mu.
func (s *Server) firstCall(m *toolmap.Mapper) (decision, int, string) {
	if s.StartURL != "" {
		c, err := m.Map(toolmap.Request{Capability: toolmap.Navigate, URL: s.StartURL})
		if err == nil {
			return decision{call: &c, why: "first turn: open the task's start page"}, 0, ""
		}
	}
	c, err := m.Map(toolmap.Request{Capability: toolmap.Snapshot})
	if err != nil {
		return decision{}, http.StatusUnprocessableEntity, "no page state in the messages and no tool to read the page: " + err.Error()
	}
	return decision{call: &c, why: "no page state yet: read the page"}, 0, ""
}

// decideOnPage reads the page state of the messages, asks the planner for a move the agent has a
// tool for and maps it to that tool's call. The caller holds s.mu.
func (s *Server) decideOnPage(ctx context.Context, t turn, m *toolmap.Mapper) (decision, int, string) {
	st, err := toolmap.ParseState(t.pageState)
	if err != nil {
		return decision{}, http.StatusUnprocessableEntity, "no readable page state in the messages: " + err.Error()
	}
	if len(st.Elements) == 0 && m.Offers(toolmap.Snapshot) && !looksLikeSnapshot(t.pageState) {
		c, _ := m.Map(toolmap.Request{Capability: toolmap.Snapshot})
		return decision{call: &c, why: "the last tool output shows no element: read the page"}, 0, ""
	}
	obs, err := observe.Parse(observe.NewSnapshotID(), st.URL, st.Aria)
	if err != nil {
		return decision{}, http.StatusUnprocessableEntity, "the page state in the messages could not be read: " + err.Error()
	}
	goal := cmpOr(s.Goal, t.prompt)
	// A move the agent has no tool for (the planner hovers, the agent's tools cannot) is not made and
	// the planner is told so, as agentkit's loop tells it of an action not delivered; it proposes
	// again, a bounded number of times.
	a, code, msg := s.propose(ctx, planner.Input{Goal: goal, Observation: obs}, "the tools offered", func(next action.Action) (bool, string) {
		c := toolmap.ForAction(next.Kind)
		return next.Kind == action.Done || c == "" || m.Offers(c) || (c == toolmap.Scroll && m.Offers(toolmap.Press)),
			"not delivered: the agent has no tool for " + string(next.Kind)
	})
	if code != 0 {
		return decision{}, code, msg
	}
	if a.Kind == action.Done {
		return decision{text: "done: " + a.Reason, why: a.Reason}, 0, ""
	}
	el, err := targetElement(obs, st, a)
	if err != nil {
		return decision{}, http.StatusInternalServerError, "the planner named no element of the page: " + err.Error()
	}
	c, err := m.Map(toolmap.Request{Capability: toolmap.ForAction(a.Kind), Element: el, URL: a.URL, Value: a.Value, Key: a.Key, Direction: a.Dir})
	if err != nil {
		return decision{}, http.StatusUnprocessableEntity, fmt.Sprintf("the planner's %s cannot be made with the tools offered: %v", a.Kind, err)
	}
	s.history = append(s.history, planner.Step{Action: a, Outcome: "proposed to the agent as " + c.Tool})
	b, _ := m.Binding(toolmap.ForAction(a.Kind))
	return decision{call: &c, why: a.Reason + "; " + b.Why}, 0, ""
}

// targetElement is the element of the agent's page state the move targets (none for a move that
// targets none), named as the page names it so the tool finds it; its raw ref when the state gave
// it no handle.
func targetElement(obs *observe.Observation, st *toolmap.State, a action.Action) (toolmap.Element, error) {
	var el toolmap.Element
	if !a.Targets() {
		return el, nil
	}
	n, err := obs.Lookup(a.Ref)
	if err != nil {
		return el, err
	}
	el = st.Elements[n.RawRef]
	el.Role, el.Name = n.Role, n.EvidenceName() // the page's own name: the tool finds the element in the page by it
	if el.Ref == "" && el.UID == "" && el.Index == nil && el.Selector == "" {
		el.Ref = n.RawRef
	}
	return el, nil
}

// maxUnofferedMoves bounds the planner's proposals in one turn that the agent has no tool for.
const maxUnofferedMoves = 8

// schemaOnly says why a structured-output request with no tool to call cannot be played: the
// schema's name and fields, and whether the messages held a page state.
func schemaOnly(t turn) string {
	name, fields := schemaFields(t.schema)
	if name == "" {
		name = t.schemaName
	}
	what := "a structured answer"
	if name != "" {
		what += fmt.Sprintf(" to the schema %q", name)
	}
	if len(fields) > 0 {
		what += " (" + strings.Join(fields, ", ") + ")"
	}
	state := "and no page state is in the messages"
	if t.pageState != "" {
		state = "and a page state in the messages names no tool of the agent's to act with"
	}
	return fmt.Sprintf("the request asks for %s but offers no tool to call (tools missing, or tool_choice none), %s: "+
		"the model plays a browser agent through the agent's own tools and does not fill a schema with made-up values", what, state)
}

// schemaFields reads a response format's schema: its name (json_schema's or text.format's) and its
// top-level property names, sorted.
func schemaFields(raw json.RawMessage) (string, []string) {
	var sc struct {
		Name       string                     `json:"name"`
		Schema     json.RawMessage            `json:"schema"`
		Properties map[string]json.RawMessage `json:"properties"`
	}
	if json.Unmarshal(raw, &sc) != nil {
		return "", nil
	}
	name := sc.Name
	if len(sc.Schema) > 0 && sc.Properties == nil {
		_, fields := schemaFields(sc.Schema)
		return name, fields
	}
	fields := make([]string, 0, len(sc.Properties))
	for k := range sc.Properties {
		fields = append(fields, k)
	}
	slices.Sort(fields)
	return name, fields
}

func looksLikeSnapshot(s string) bool {
	return strings.Contains(s, "[ref=") || strings.Contains(s, "uid=") || toolmap.HasNumberedList(s)
}

// schemaValue answers a JSON schema with a value of its shape: strings say the decision, numbers are
// 0, booleans true, arrays hold one item, objects every property.
func schemaValue(schema json.RawMessage, d decision, depth int) any {
	var sc struct {
		Type       any                        `json:"type"`
		Properties map[string]json.RawMessage `json:"properties"`
		Items      json.RawMessage            `json:"items"`
		Enum       []any                      `json:"enum"`
		AnyOf      []json.RawMessage          `json:"anyOf"`
		Schema     json.RawMessage            `json:"schema"`
	}
	if depth > 8 || json.Unmarshal(schema, &sc) != nil {
		return nil
	}
	if len(sc.Schema) > 0 && sc.Properties == nil && sc.Type == nil { // {name, schema} wrapper
		return schemaValue(sc.Schema, d, depth+1)
	}
	if len(sc.Enum) > 0 {
		return sc.Enum[0]
	}
	if len(sc.AnyOf) > 0 {
		return schemaValue(sc.AnyOf[0], d, depth+1)
	}
	typ, _ := sc.Type.(string)
	if arr, ok := sc.Type.([]any); ok && len(arr) > 0 {
		typ, _ = arr[0].(string)
	}
	if typ == "" && sc.Properties != nil {
		typ = "object"
	}
	switch typ {
	case "object":
		out := map[string]any{}
		keys := make([]string, 0, len(sc.Properties))
		for k := range sc.Properties {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		for _, k := range keys {
			out[k] = schemaValue(sc.Properties[k], d, depth+1)
		}
		return out
	case "array":
		if len(sc.Items) == 0 {
			return []any{}
		}
		return []any{schemaValue(sc.Items, d, depth+1)}
	case "string":
		return d.summary()
	case "number", "integer":
		return 0
	case "boolean":
		return true
	case "null":
		return nil
	}
	return d.summary()
}

func (d decision) summary() string {
	if d.call != nil {
		b, _ := json.Marshal(d.call.Args)
		return d.call.Tool + " " + string(b)
	}
	if d.text != "" {
		return d.text
	}
	return d.why
}

func callID() string { return "call_" + strconv.FormatInt(time.Now().UnixNano(), 36) }

// message text: a string, or a list of parts with text.
func textOf(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var parts []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	if json.Unmarshal(raw, &parts) == nil {
		var b strings.Builder
		for _, p := range parts {
			if p.Text != "" {
				if b.Len() > 0 {
					b.WriteString("\n")
				}
				b.WriteString(p.Text)
			}
		}
		return b.String()
	}
	return ""
}

// writeSSE writes one server-sent event.
func writeSSE(w io.Writer, event string, data any) {
	b, _ := json.Marshal(data)
	if event != "" {
		fmt.Fprintf(w, "event: %s\n", event)
	}
	fmt.Fprintf(w, "data: %s\n\n", b)
	if f, ok := w.(http.Flusher); ok {
		f.Flush()
	}
}

// Environ is what the agent's process gets: the endpoint's base URL and a dummy key, for OpenAI's
// API and Anthropic's (anthropicEnviron).
func Environ(baseURL string) []string {
	return append([]string{"OPENAI_BASE_URL=" + baseURL, "OPENAI_API_KEY=trapline-dummy-key", "TRAPLINE_MODEL_URL=" + baseURL}, anthropicEnviron(baseURL)...)
}

// OpenLog creates the call log file.
func OpenLog(path string) (*os.File, error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, fmt.Errorf("modelserve: the call log: %w", err)
	}
	return f, nil
}
