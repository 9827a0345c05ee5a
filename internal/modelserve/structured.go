package modelserve

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/trapline/trapline/agentkit/action"
	"github.com/trapline/trapline/internal/toolmap"
)

// An agent that calls no tools asks for its next move as a structured answer: browser-use's
// "agent_output" (`action: [{"click_element_by_index": {"index": 2}}, ...]`), magnitude-core's
// `actions: [{variant: "mouse:click", x, y}, ...]`, any union of action objects. Such a schema is the
// agent's own action space: one variant per move, a parameter per handle. The endpoint finds the
// union in the schema, maps each variant to a planner move by its name's words (variantWords), and
// answers the variant of the planner's move, its parameters filled with grounded values only (the
// index from the agent's own element list, the URL the planner chose, coordinates of the element's
// box in the run's browser), the whole answer checked against the schema before it is sent.

// ErrNoUnion says a schema holds no union of action objects.
var ErrNoUnion = errors.New("no union of action objects in the schema")

// variant is one action object of a union.
type variant struct {
	name   string      // "click_element_by_index", "mouse:click"
	kind   action.Kind // the planner move it makes ("" when no word maps it)
	params obj         // its parameters' object schema
	tag    string      // the discriminator property ("variant", "type"); "" when the variant is {name: params}
}

// shape is a structured answer's schema seen as a union of action objects.
type shape struct {
	name     string // the schema's name
	root     obj    // the schema
	at       string // the root's property holding the union ("" when the root is the union)
	list     bool   // that property is a list of actions
	variants []variant
	text     *textFormat // the answer is written as this described text, not JSON (textformat.go)
}

type obj = map[string]any

// variantWords maps the words of a variant's name to a planner move: the first row with a word in
// the name wins; a name with a word of skipWords makes no move trapline plays (a double or right
// click, a drag, a tab switch, going back, a fail or wait).
var variantWords = []struct {
	kind  action.Kind
	words []string
}{
	{action.Done, []string{"done", "finish", "finished", "complete", "stop", "send_msg_to_user"}},
	{action.Goto, []string{"navigate", "goto", "go_to", "open_url", "nav", "url"}},
	{action.Fill, []string{"type", "input", "fill"}},
	{action.Select, []string{"select", "dropdown"}},
	{action.Press, []string{"press", "key", "keys", "keypress", "send_keys"}},
	{action.Scroll, []string{"scroll"}},
	{action.Hover, []string{"hover"}},
	{action.Click, []string{"click", "tap"}},
}

var skipWords = []string{"double", "right", "drag", "back", "forward", "switch", "new", "close", "get", "fail",
	"wait", "extract", "upload", "search", "all", "tab", "backspace", "enter", "screenshot"}

// kindOf is the planner move a variant's name makes ("" for none).
func kindOf(name string) action.Kind {
	words := strings.FieldsFunc(strings.ToLower(name), func(r rune) bool { return !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9') })
	joined := strings.Join(words, "_")
	for _, w := range words {
		if slices.Contains(skipWords, w) {
			return ""
		}
	}
	for _, row := range variantWords {
		for _, w := range row.words {
			if slices.Contains(words, w) || strings.Contains(w, "_") && strings.Contains(joined, w) {
				return row.kind
			}
		}
	}
	return ""
}

// parseShape reads a response format's schema (a bare schema, or json_schema's {name, schema}
// wrapper) as a union of action objects; ErrNoUnion when it is none.
func parseShape(raw json.RawMessage, name string) (*shape, error) {
	var root obj
	if err := json.Unmarshal(raw, &root); err != nil {
		return nil, fmt.Errorf("the schema is no JSON object: %w", err)
	}
	if inner, ok := root["schema"].(obj); ok && root["properties"] == nil {
		if n, ok := root["name"].(string); ok {
			name = n
		}
		root = inner
	}
	sh := &shape{name: name, root: root}
	if vs := sh.unionOf(root); len(vs) > 0 {
		sh.variants = vs
		return sh, nil
	}
	props, _ := sh.resolve(root)["properties"].(obj)
	for _, k := range sortedKeys(props) {
		p, _ := props[k].(obj)
		list := false
		if items := sh.listItems(p, 0); items != nil {
			p, list = items, true
		}
		if vs := sh.unionOf(p); len(vs) > 0 {
			sh.at, sh.list, sh.variants = k, list, vs
			return sh, nil
		}
	}
	return nil, ErrNoUnion
}

// listItems is the item schema of an array schema, or of the array branch of a nullable one
// (browser-use's `action: anyOf [array, null]`); nil when s is no list.
func (sh *shape) listItems(s obj, depth int) obj {
	s = sh.resolve(s)
	if depth > 4 {
		return nil
	}
	if items, ok := s["items"].(obj); ok && typeIs(s, "array") {
		return sh.resolve(items)
	}
	for _, b := range branches(s) {
		if bo, ok := b.(obj); ok {
			if items := sh.listItems(bo, depth+1); items != nil {
				return items
			}
		}
	}
	return nil
}

// unionOf reads s's anyOf/oneOf as action objects: two or more variants, one at least a move.
func (sh *shape) unionOf(s obj) []variant {
	var out []variant
	known := false
	for _, b := range branches(sh.resolve(s)) {
		bo, ok := b.(obj)
		if !ok {
			return nil
		}
		v, ok := sh.variantOf(sh.resolve(bo))
		if !ok {
			if typeIs(sh.resolve(bo), "null") {
				continue
			}
			return nil
		}
		known = known || v.kind != ""
		out = append(out, v)
	}
	if len(out) < 2 || !known {
		return nil
	}
	return out
}

// tagProps are the properties a tagged variant names itself by.
var tagProps = []string{"variant", "type", "action", "kind", "name", "action_type", "method"}

func (sh *shape) variantOf(b obj) (variant, bool) {
	props, _ := b["properties"].(obj)
	for _, t := range tagProps {
		p, ok := props[t].(obj)
		if !ok {
			continue
		}
		p = sh.resolve(p)
		name, ok := p["const"].(string)
		if enum, _ := p["enum"].([]any); !ok && len(enum) == 1 {
			name, ok = enum[0].(string)
		}
		if ok {
			params := obj{"type": "object", "properties": props, "required": b["required"]}
			return variant{name: name, kind: kindOf(name), params: params, tag: t}, true
		}
	}
	if len(props) == 1 {
		for k, p := range props {
			po, _ := p.(obj)
			return variant{name: k, kind: kindOf(k), params: sh.resolve(po)}, true
		}
	}
	return variant{}, false
}

// resolve follows a local $ref ("#/$defs/X", "#/definitions/X") in the root schema.
func (sh *shape) resolve(s obj) obj {
	for range 8 {
		ref, ok := s["$ref"].(string)
		if !ok || !strings.HasPrefix(ref, "#/") {
			return s
		}
		var cur any = sh.root
		for _, part := range strings.Split(strings.TrimPrefix(ref, "#/"), "/") {
			m, _ := cur.(obj)
			cur = m[strings.ReplaceAll(strings.ReplaceAll(part, "~1", "/"), "~0", "~")]
		}
		next, ok := cur.(obj)
		if !ok {
			return s
		}
		s = next
	}
	return s
}

func branches(s obj) []any {
	if b, ok := s["anyOf"].([]any); ok {
		return b
	}
	b, _ := s["oneOf"].([]any)
	return b
}

// typeIs reports whether s's type is (or includes) t.
func typeIs(s obj, t string) bool {
	switch ty := s["type"].(type) {
	case string:
		return ty == t
	case []any:
		return slices.Contains(ty, any(t))
	}
	if t == "null" {
		for _, b := range branches(s) {
			if bo, ok := b.(obj); ok && typeIs(bo, "null") {
				return true
			}
		}
	}
	return false
}

func sortedKeys(m obj) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// kinds lists the moves the shape's variants make, for messages.
func (sh *shape) kinds() []string {
	var out []string
	for _, v := range sh.variants {
		if v.kind != "" && !slices.Contains(out, string(v.kind)) {
			out = append(out, string(v.kind))
		}
	}
	return out
}

// validate checks an answer against the request's own schema with a JSON Schema validator (every
// draft the frameworks send: browser-use's 2020-12, zod-to-json-schema's draft-07).
func (sh *shape) validate(answer any) error {
	c := jsonschema.NewCompiler()
	if err := c.AddResource("agent-schema.json", sh.root); err != nil {
		return fmt.Errorf("the schema cannot be read: %w", err)
	}
	sch, err := c.Compile("agent-schema.json")
	if err != nil {
		return fmt.Errorf("the schema cannot be compiled: %w", err)
	}
	b, err := json.Marshal(answer)
	if err != nil {
		return err
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
	if err != nil {
		return err
	}
	return sch.Validate(inst)
}

// grounded is what a variant's parameters may be filled with: the planner's move, the element it
// targets (its handles in the agent's own listing) and the point of its box in the coordinate
// system the request declares (nil when no ground truth was read).
type grounded struct {
	move  action.Action
	el    toolmap.Element
	point *[2]int
	box   *[4]int // the element's box, x1 y1 x2 y2, in the same coordinates
}

// paramWords map a parameter's name to the grounded value it takes.
var paramWords = map[string][]string{
	"index":    {"index", "element_index", "idx", "highlight_index"},
	"ref":      {"ref", "element_ref"},
	"uid":      {"uid", "element_id", "elementid", "id"},
	"selector": {"selector", "css", "css_selector"},
	"url":      {"url", "href", "link"},
	"value":    {"text", "content", "value", "input", "option", "options", "option_text", "label"},
	"key":      {"key", "keys", "key_comb"},
	"dir":      {"direction", "dir"},
	"say":      {"text", "evidence", "message", "summary", "result", "answer", "reason", "content"},
	"x":        {"x"},
	"y":        {"y"},
	"point":    {"coordinate", "coordinates", "point", "position"},
	"box":      {"box", "bbox", "bounding_box"},
	// handle: a parameter that names the element by whatever handle the agent's listing gives it (an
	// index, a ref or uid): WebArena's [id], BrowserGym's bid.
	"handle": {"id", "bid", "element", "element_id", "elementid", "nid", "node_id", "target"},
}

func paramIs(name, what string) bool { return slices.Contains(paramWords[what], strings.ToLower(name)) }

// handles says whether a parameter names the element (so a variant without one acts on no element).
func handles(name string) bool {
	for _, w := range []string{"index", "ref", "uid", "selector", "x", "y", "point", "box", "handle"} {
		if paramIs(name, w) {
			return true
		}
	}
	return false
}

// value is the grounded value of one parameter, false when there is none: the first row of
// elementParams, then of moveParams, that fills it.
func (g grounded) value(name string, ps obj) (any, bool) {
	for _, p := range elementParams {
		if paramIs(name, p.word) && p.has(g) {
			return p.get(g), true
		}
	}
	for _, p := range moveParams {
		if slices.Contains(p.kinds, g.move.Kind) && p.names(name, ps) {
			return p.get(g.move, ps)
		}
	}
	return nil, false
}

// elementParams fill the parameters that name the element or its point, in order: a row applies
// when the parameter's name is one of its word's (paramWords) and the element has that handle.
var elementParams = []struct {
	word string
	has  func(g grounded) bool
	get  func(g grounded) any
}{
	{"index", func(g grounded) bool { return g.el.Index != nil }, func(g grounded) any { return *g.el.Index }},
	{"ref", func(g grounded) bool { return g.el.Ref != "" }, func(g grounded) any { return g.el.Ref }},
	{"uid", func(g grounded) bool { return g.el.UID != "" || g.el.Ref != "" }, func(g grounded) any { return cmpOr(g.el.UID, g.el.Ref) }},
	{"selector", func(g grounded) bool { return g.el.Selector != "" }, func(g grounded) any { return g.el.Selector }},
	{"x", hasPoint, func(g grounded) any { return g.point[0] }},
	{"y", hasPoint, func(g grounded) any { return g.point[1] }},
	{"point", hasPoint, func(g grounded) any { return []any{g.point[0], g.point[1]} }},
	{"box", func(g grounded) bool { return g.box != nil }, func(g grounded) any { return []any{g.box[0], g.box[1], g.box[2], g.box[3]} }},
	{"handle", func(g grounded) bool { return g.el.Index != nil || g.el.Ref != "" || g.el.UID != "" }, func(g grounded) any {
		if g.el.Index != nil {
			return *g.el.Index
		}
		return cmpOr(g.el.UID, g.el.Ref)
	}},
}

func hasPoint(g grounded) bool { return g.point != nil }

// moveParams fill the parameters the planner's move itself gives, in order: a row applies to a move
// of one of its kinds whose parameter its names accepts, and get says the value and whether it has one.
var moveParams = []struct {
	kinds []action.Kind
	names func(name string, ps obj) bool
	get   func(a action.Action, ps obj) (any, bool)
}{
	{[]action.Kind{action.Goto}, named("url"), func(a action.Action, _ obj) (any, bool) { return a.URL, a.URL != "" }},
	{[]action.Kind{action.Fill, action.Select}, named("value"), func(a action.Action, _ obj) (any, bool) { return a.Value, true }},
	{[]action.Kind{action.Press}, named("key"), pressKey},
	{[]action.Kind{action.Scroll}, named("dir"), func(a action.Action, _ obj) (any, bool) { return a.Dir, a.Dir != "" }},
	{[]action.Kind{action.Scroll}, boolNamed("down"), func(a action.Action, _ obj) (any, bool) { return a.Dir == "down", true }},
	{[]action.Kind{action.Done}, named("say"), func(a action.Action, _ obj) (any, bool) { return cmpOr(a.Reason, "done"), true }},
	// Whether the task succeeded is not the planner's to claim (the outside observers judge), and a
	// claimed success makes browser-use ask its model to judge it ({is_correct}), a question that is
	// no move: false.
	{[]action.Kind{action.Done}, boolNamed("success"), func(action.Action, obj) (any, bool) { return false, true }},
}

// named accepts a parameter named by one of what's paramWords.
func named(what string) func(string, obj) bool {
	return func(name string, _ obj) bool { return paramIs(name, what) }
}

// boolNamed accepts a boolean parameter with exactly this name (any case).
func boolNamed(flagName string) func(string, obj) bool {
	return func(name string, ps obj) bool { return strings.EqualFold(name, flagName) && typeIs(ps, "boolean") }
}

// pressKey is a Press move's key, as a one-key array when the parameter's schema asks for an array.
func pressKey(a action.Action, ps obj) (any, bool) {
	if typeIs(ps, "array") {
		return []any{a.Key}, a.Key != ""
	}
	return a.Key, a.Key != ""
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// fill fills a variant's parameters: each grounded value, and for a required parameter with none its
// null (when the schema allows it), its default, or false for a flag; anything else is an error
// naming the parameter, never a made-up value.
func (sh *shape) fill(v variant, g grounded, needTarget bool) (any, error) {
	params := sh.resolve(v.params)
	props, _ := params["properties"].(obj)
	required := stringsOf(params["required"])
	out := obj{}
	target := false
	for _, k := range sortedKeys(props) {
		if k == v.tag {
			continue
		}
		ps := sh.resolve(asObj(props[k]))
		if val, ok := g.value(k, ps); ok {
			out[k] = val
			target = target || handles(k)
			continue
		}
		if !slices.Contains(required, k) {
			continue
		}
		switch def, hasDef := ps["default"]; {
		case hasDef:
			out[k] = def
		case typeIs(ps, "null"):
			out[k] = nil
		case typeIs(ps, "boolean"):
			out[k] = false
		default:
			return nil, &ungroundedError{fmt.Sprintf("%s's parameter %q has no grounded value for a %s", v.name, k, g.move.Kind)}
		}
	}
	if needTarget && g.move.Targets() && !target {
		return nil, &ungroundedError{fmt.Sprintf("%s names no element (no index, ref, selector or coordinates among its parameters that the element has)", v.name)}
	}
	if v.tag != "" {
		out[v.tag] = v.name
		return out, nil
	}
	return obj{v.name: out}, nil
}

// ungroundedError says a variant of the move's kind exists but cannot be filled with grounded
// values: the agent's action space for that move is one trapline cannot play (a 422), not a move the
// agent lacks (which the planner is told, and moves on).
type ungroundedError struct{ msg string }

func (e *ungroundedError) Error() string { return e.msg }

func asObj(v any) obj {
	o, _ := v.(obj)
	return o
}

func stringsOf(v any) []string {
	var out []string
	list, _ := v.([]any)
	for _, s := range list {
		if str, ok := s.(string); ok {
			out = append(out, str)
		}
	}
	return out
}

// answer writes the whole structured answer: the actions at the union's place, and every other
// required field of the root (the agent's "thinking", "memory", "next_goal", "reasoning") the
// planner's reason for a string, null, an empty list or its default; a required field of another
// kind is an error naming it.
func (sh *shape) answer(actions []any, reason string) (any, error) {
	if sh.at == "" {
		return actions[0], nil
	}
	out, err := sh.fillObject(sh.resolve(sh.root), reason, 0)
	if err != nil {
		return nil, err
	}
	if sh.list {
		out[sh.at] = actions
	} else {
		out[sh.at] = actions[0]
	}
	return out, nil
}

func (sh *shape) fillObject(s obj, reason string, depth int) (obj, error) {
	props, _ := s["properties"].(obj)
	required := stringsOf(s["required"])
	out := obj{}
	for _, k := range sortedKeys(props) {
		if depth == 0 && k == sh.at {
			continue
		}
		ps := sh.resolve(asObj(props[k]))
		def, hasDef := ps["default"]
		switch {
		case typeIs(ps, "string"):
			out[k] = reason
		case !slices.Contains(required, k):
		case hasDef:
			out[k] = def
		case typeIs(ps, "null"):
			out[k] = nil
		case typeIs(ps, "array"):
			out[k] = []any{}
		case typeIs(ps, "object") && depth < 3:
			v, err := sh.fillObject(ps, reason, depth+1)
			if err != nil {
				return nil, err
			}
			out[k] = v
		default:
			return nil, fmt.Errorf("the schema's field %q (%v) is no action and has no value trapline can ground", k, ps["type"])
		}
	}
	return out, nil
}
