// Package toolmap maps trapline's planner actions onto any agent tool described by JSON schemas: an
// MCP server's tool list, an agent framework's function tools, a CLI's commands described the same
// way. Given the tools (name, description, input schema) it finds the ones that navigate, click,
// type or fill, select, press a key, hover, scroll and read the page, and turns an action into a call
// of the tool's own, the element argument under whatever name and kind the schema uses: a snapshot
// ref (`ref`, `target`), a `uid`, an `index` into a numbered list, a CSS `selector`, or a free-text
// instruction ("click button \"Elimina pratica\"").
//
// The mapper only reads schemas; it calls nothing. A tool list it cannot map is a *MissingError naming
// the missing capability; a required argument it cannot fill is an error naming the tool and the
// argument, never a guessed value.
package toolmap

import (
	"encoding/json"
	"errors"
	"fmt"
	"github.com/trapline/trapline/agentkit/action"
	"slices"
	"sort"
	"strings"
	"unicode"
)

// Tool is one tool as its server or framework describes it.
type Tool struct {
	Name        string          `json:"name"`
	Description string          `json:"description,omitempty"`
	InputSchema json.RawMessage `json:"inputSchema,omitempty"`
}

// Capability is what a tool does for the model.
type Capability string

// The capabilities the mapper looks for.
const (
	Navigate Capability = "navigate"
	Click    Capability = "click"
	Fill     Capability = "fill"
	Select   Capability = "select"
	Press    Capability = "press"
	Hover    Capability = "hover"
	Scroll   Capability = "scroll"
	Snapshot Capability = "snapshot" // read the page: a snapshot, an element list, its text or HTML
	// Script runs JavaScript in the page (puppeteer_evaluate {script}, execute-code {code}): the page
	// reader and the actions of a server that offers no other tool for them (scripts.go).
	Script Capability = "script"
)

// Capabilities lists every capability in the order they are looked for.
func Capabilities() []Capability {
	return []Capability{Navigate, Click, Fill, Select, Press, Hover, Scroll, Snapshot, Script}
}

// Required are the capabilities without which no run can test anything: each a tool of its own or
// reached through the script tool (Reaches).
var Required = []Capability{Navigate, Click, Snapshot}

// ElementKind is how a tool's schema names an element.
type ElementKind string

// The element argument kinds.
const (
	KindRef         ElementKind = "ref"         // a ref of the tool's own snapshot ("e2", "@e2")
	KindUID         ElementKind = "uid"         // chrome-devtools-mcp's uid ("1_2")
	KindIndex       ElementKind = "index"       // a number of a numbered element list
	KindSelector    ElementKind = "selector"    // a CSS (or Playwright) selector
	KindInstruction ElementKind = "instruction" // a free-text instruction ("click button \"Elimina\"")
	KindText        ElementKind = "text"        // the element's visible text (click({text: "Elimina pratica"}))
)

// MissingError says a tool list has no tool for a capability trapline needs.
type MissingError struct {
	// Capability is the first required capability no tool offers.
	Capability Capability
	// Have names the tools offered.
	Have []string
}

func (e *MissingError) Error() string {
	msg := fmt.Sprintf("no tool to %s the page among the tools offered (%s)", e.Capability, strings.Join(e.Have, ", "))
	if ViaScript(e.Capability) {
		msg += fmt.Sprintf(", and no script tool to %s it with trapline's fixed script", e.Capability)
	}
	return msg
}

// Binding is how one capability is called: the tool and the names of its arguments.
type Binding struct {
	Tool string `json:"tool"`
	// Element is the argument naming the element ("" for a call without one), of kind ElementKind.
	Element     string      `json:"element,omitempty"`
	ElementKind ElementKind `json:"element_kind,omitempty"`
	// ElementIn is set when Element is a list of selector objects (the Playwright MCP fork
	// @tontoko/fast-playwright-mcp's `selectors: [{ref}, {role, text}, {css}]`): the property of one
	// such object that takes the handle; the call gets `[{ElementIn: handle}]`.
	ElementIn string `json:"element_in,omitempty"`
	// Describe is an argument that takes a human-readable description of the element (Playwright
	// MCP's "element"), filled alongside the element's handle.
	Describe string `json:"describe,omitempty"`
	// Value is the text or option argument (fill, select); ValueArray says it takes a list.
	Value      string `json:"value,omitempty"`
	ValueArray bool   `json:"value_array,omitempty"`
	// URL is the address argument (navigate); Key the key argument (press).
	URL string `json:"url,omitempty"`
	Key string `json:"key,omitempty"`
	// Direction is a scroll tool's direction argument.
	Direction string `json:"direction,omitempty"`
	// Script is a script tool's code argument; ScriptAsFunction says it takes a function declaration
	// ("() => {...}") rather than an expression.
	Script           string `json:"script,omitempty"`
	ScriptAsFunction bool   `json:"script_as_function,omitempty"`
	// Fixed are arguments the call always gets (an enum's only fitting value: navigate_page type=url).
	Fixed map[string]any `json:"fixed,omitempty"`
	// Context are required arguments the session fills (a page id).
	Context []string `json:"context,omitempty"`
	// Why says which schema features chose the tool.
	Why string `json:"why"`
}

// Mapper is the capabilities found in one tool list.
type Mapper struct {
	tools    []Tool
	bindings map[Capability]Binding
}

// New finds the capabilities in tools. A tool list without a tool to navigate, click or read the page
// is a *MissingError.
func New(tools []Tool) (*Mapper, error) { return NewWith(tools, Required) }

// NewWith is New with the capabilities the caller needs from the tools: a caller that reads the page
// elsewhere (the run's own browser, over DevTools) needs no page reader among them.
func NewWith(tools []Tool, required []Capability) (*Mapper, error) {
	m := &Mapper{tools: tools, bindings: map[Capability]Binding{}}
	var schemas []schema
	for _, t := range tools {
		s, err := parseSchema(t.InputSchema)
		if err != nil {
			return nil, fmt.Errorf("toolmap: tool %q: input schema: %w", t.Name, err)
		}
		schemas = append(schemas, s)
	}
	for _, c := range Capabilities() {
		best, bestScore := Binding{}, 0
		for i, t := range tools {
			b, score := bind(c, t, schemas[i])
			if score > bestScore {
				best, bestScore = b, score
			}
		}
		if bestScore > 0 {
			m.bindings[c] = best
		}
	}
	for _, c := range required {
		if !m.Reaches(c) {
			return nil, &MissingError{Capability: c, Have: m.names()}
		}
	}
	return m, nil
}

func (m *Mapper) names() []string {
	var out []string
	for _, t := range m.tools {
		out = append(out, t.Name)
	}
	return out
}

// Offers reports whether a tool was found for c.
func (m *Mapper) Offers(c Capability) bool { _, ok := m.bindings[c]; return ok }

// Reaches reports whether a request for c can be mapped: a tool of its own, the page keys for a
// scroll, or the script tool for what a script can do (ViaScript).
func (m *Mapper) Reaches(c Capability) bool {
	return m.Offers(c) || c == Scroll && m.Offers(Press) || m.Offers(Script) && ViaScript(c)
}

// Binding returns how c is called.
func (m *Mapper) Binding(c Capability) (Binding, bool) { b, ok := m.bindings[c]; return b, ok }

// Bindings returns every capability found, for the evidence.
func (m *Mapper) Bindings() map[Capability]Binding { return maps(m.bindings) }

func maps(in map[Capability]Binding) map[Capability]Binding {
	out := make(map[Capability]Binding, len(in))
	for k, v := range in {
		out[k] = v
	}
	return out
}

// Element is what trapline knows of the element an action targets: the handles the page state gave
// (any of them may be empty) and its role and accessible name.
type Element struct {
	Ref      string `json:"ref,omitempty"`
	UID      string `json:"uid,omitempty"`
	Index    *int   `json:"index,omitempty"`
	Selector string `json:"selector,omitempty"`
	// Text is the element's visible text (a click-by-text tool's handle), when the page state gave it.
	Text string `json:"text,omitempty"`
	Role string `json:"role,omitempty"`
	Name string `json:"name,omitempty"`
}

// Describe is the human-readable description of e: `button "Elimina pratica"`.
func (e Element) Describe() string {
	if e.Name == "" {
		return e.Role
	}
	return fmt.Sprintf("%s %q", e.Role, e.Name)
}

// Request is one action to map: the capability and its arguments.
type Request struct {
	Capability Capability
	Element    Element
	URL        string
	Value      string
	Key        string
	Direction  string // "up" or "down"
	// Context are values the session knows for context arguments (pageId).
	Context map[string]any
}

// Call is a request mapped onto one tool's call.
type Call struct {
	Tool string         `json:"tool"`
	Args map[string]any `json:"args"`
}

// ErrNotOffered says no tool offers the request's capability.
var ErrNotOffered = errors.New("the tool offers no such call")

// Map turns r into a call. A capability no tool offers wraps ErrNotOffered; an element the binding's
// kind cannot name (an index for a tool that takes a uid the page state did not give) is an error,
// never a guess.
func (m *Mapper) Map(r Request) (Call, error) {
	b, ok := m.bindings[r.Capability]
	if !ok {
		if r.Capability == Scroll && m.Offers(Press) { // scroll with the page keys
			key := "PageDown"
			if r.Direction == "up" {
				key = "PageUp"
			}
			return m.Map(Request{Capability: Press, Key: key, Context: r.Context})
		}
		if sb, ok := m.bindings[Script]; ok && ViaScript(r.Capability) {
			return scriptCall(sb, r)
		}
		return Call{}, fmt.Errorf("%w: %s", ErrNotOffered, r.Capability)
	}
	args := map[string]any{}
	for k, v := range b.Fixed {
		args[k] = v
	}
	for _, k := range b.Context {
		v, ok := r.Context[k]
		if !ok {
			return Call{}, fmt.Errorf("toolmap: %s needs the argument %q, which the session did not give", b.Tool, k)
		}
		args[k] = v
	}
	if b.Element != "" {
		v, err := elementArg(b, r)
		if err != nil {
			return Call{}, err
		}
		if b.ElementIn != "" {
			v = []any{map[string]any{b.ElementIn: v}}
		}
		args[b.Element] = v
	}
	if b.Describe != "" {
		args[b.Describe] = r.Element.Describe()
	}
	if b.URL != "" {
		args[b.URL] = r.URL
	}
	if b.Key != "" {
		args[b.Key] = r.Key
	}
	if b.Direction != "" {
		args[b.Direction] = r.Direction
	}
	if b.Value != "" {
		if b.ValueArray {
			args[b.Value] = []string{r.Value}
		} else {
			args[b.Value] = r.Value
		}
	}
	return Call{Tool: b.Tool, Args: args}, nil
}

func elementArg(b Binding, r Request) (any, error) {
	e := r.Element
	switch b.ElementKind {
	case KindRef:
		if e.Ref != "" {
			return e.Ref, nil
		}
		if e.Selector != "" { // Playwright MCP's target takes "a unique element selector" too
			return e.Selector, nil
		}
	case KindUID:
		if e.UID != "" {
			return e.UID, nil
		}
	case KindIndex:
		if e.Index != nil {
			return *e.Index, nil
		}
	case KindSelector:
		if e.Selector != "" {
			return e.Selector, nil
		}
		if e.Role != "" && e.Name != "" { // Playwright's role selector engine
			return fmt.Sprintf("role=%s[name=%s]", e.Role, jsonQuote(e.Name)), nil
		}
	case KindText:
		if t := e.VisibleText(); t != "" {
			return t, nil
		}
	case KindInstruction:
		verb := string(r.Capability)
		s := fmt.Sprintf("%s %s", verb, e.Describe())
		switch r.Capability {
		case Fill:
			s = fmt.Sprintf("type %s into %s", jsonQuote(r.Value), e.Describe())
		case Select:
			s = fmt.Sprintf("select %s in %s", jsonQuote(r.Value), e.Describe())
		}
		return s, nil
	}
	return nil, fmt.Errorf("toolmap: %s names its element by %s (%q), which the page state did not give for %s",
		b.Tool, b.ElementKind, b.Element, e.Describe())
}

func jsonQuote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// schema is the part of a JSON input schema the mapper reads: the top-level properties.
type schema struct {
	props    map[string]prop
	required []string
}

type prop struct {
	Type        any             `json:"type"`
	Description string          `json:"description"`
	Enum        []any           `json:"enum"`
	Const       any             `json:"const"`
	Items       *prop           `json:"items"`
	AnyOf       []prop          `json:"anyOf"`
	OneOf       []prop          `json:"oneOf"`
	Properties  map[string]prop `json:"properties"`
	Required    []string        `json:"required"`
}

func (p prop) is(t string) bool {
	switch v := p.Type.(type) {
	case string:
		return v == t
	case []any:
		for _, x := range v {
			if x == t {
				return true
			}
		}
	}
	for _, a := range p.AnyOf {
		if a.is(t) {
			return true
		}
	}
	return false
}

func parseSchema(raw json.RawMessage) (schema, error) {
	s := schema{props: map[string]prop{}}
	if len(raw) == 0 || string(raw) == "null" {
		return s, nil
	}
	var doc struct {
		Properties map[string]prop `json:"properties"`
		Required   []string        `json:"required"`
	}
	if err := json.Unmarshal(raw, &doc); err != nil {
		return s, err
	}
	if doc.Properties != nil {
		s.props = doc.Properties
	}
	s.required = doc.Required
	return s, nil
}

// tokens splits a tool name into lower-case words: browser_click, playwright-fill, takeSnapshot.
func tokens(name string) []string {
	var out []string
	var cur strings.Builder
	flush := func() {
		if cur.Len() > 0 {
			out = append(out, strings.ToLower(cur.String()))
			cur.Reset()
		}
	}
	prev := rune(0)
	for _, r := range name {
		switch {
		case !unicode.IsLetter(r) && !unicode.IsDigit(r):
			flush()
		case unicode.IsUpper(r) && unicode.IsLower(prev):
			flush()
			cur.WriteRune(r)
		default:
			cur.WriteRune(r)
		}
		prev = r
	}
	flush()
	return out
}

func hasAny(toks []string, words ...string) bool {
	for _, w := range words {
		if slices.Contains(toks, w) {
			return true
		}
	}
	return false
}

// handleKind is the element kind of an argument named k, "" for none: uid, ref, a target that takes a
// ref or selector, a CSS selector, a numeric index.
func handleKind(k string, p prop) ElementKind {
	lk := strings.ToLower(k)
	d := strings.ToLower(p.Description)
	switch {
	case lk == "uid":
		return KindUID
	case lk == "ref" || lk == "elementref" || lk == "element_ref":
		return KindRef
	case lk == "target" && (strings.Contains(d, "ref") || strings.Contains(d, "selector")):
		return KindRef
	case lk == "selector" || lk == "cssselector" || lk == "css":
		return KindSelector
	case (lk == "index" || lk == "elementindex" || lk == "element_index") && (p.is("number") || p.is("integer")):
		return KindIndex
	}
	return ""
}

// kindRank orders the handles a list of selector objects may offer: the snapshot's own ref first.
var kindRank = []ElementKind{KindRef, KindUID, KindSelector, KindIndex}

// nestedHandle reads an argument that is a list of selector objects, each item one of several
// shapes (`{"ref"}`, `{"role","text"}`, `{"css"}`): the property of the shape whose only required
// property is a handle, the best-ranked one. "" when p is no such list.
func nestedHandle(p prop) (string, ElementKind) {
	if !p.is("array") || p.Items == nil {
		return "", ""
	}
	shapes := append(append([]prop{}, p.Items.AnyOf...), p.Items.OneOf...)
	if len(shapes) == 0 {
		shapes = []prop{*p.Items}
	}
	best, bestKind, bestRank := "", ElementKind(""), len(kindRank)
	for _, sh := range shapes {
		for _, k := range sortedKeys(sh.Properties) {
			kind := handleKind(k, sh.Properties[k])
			r := slices.Index(kindRank, kind)
			if kind == "" || r >= bestRank || !onlyRequired(sh.Required, k) {
				continue
			}
			best, bestKind, bestRank = k, kind, r
		}
	}
	return best, bestKind
}

// onlyRequired reports whether required asks for nothing but k.
func onlyRequired(required []string, k string) bool {
	for _, r := range required {
		if r != k {
			return false
		}
	}
	return true
}

// elementProp finds the argument that names an element, its kind, a description argument, and for a
// list of selector objects the property of one object that takes the handle (in).
func elementProp(s schema) (name string, kind ElementKind, describe, in string) {
	lower := func(k string) string { return strings.ToLower(s.props[k].Description) }
	keys := sortedKeys(s.props)
	humanDesc := func(k string) bool {
		d := lower(k)
		return strings.Contains(d, "human-readable") || strings.Contains(d, "description") && !strings.Contains(d, "reference")
	}
	var found string
	var fkind ElementKind
	for _, k := range keys {
		if kind := handleKind(k, s.props[k]); kind != "" {
			found, fkind = k, kind
			break
		}
	}
	if found == "" {
		if _, ok := s.props["element"]; ok && !humanDesc("element") && !s.props["element"].is("array") {
			found, fkind = "element", KindRef
		}
	}
	if found == "" { // a list of selector objects: selectors: [{ref: "e2"}]
		for _, k := range []string{"selectors", "selector", "targets", "target", "elements", "element", "locators", "locator"} {
			if p, ok := s.props[k]; ok {
				if inner, kind := nestedHandle(p); inner != "" {
					found, fkind, in = k, kind, inner
					break
				}
			}
		}
	}
	if found == "" { // a free-text instruction: Stagehand's act("click ..."), an "action" or "instruction" string
		for _, k := range []string{"instruction", "action", "prompt", "command", "task"} {
			if p, ok := s.props[k]; ok && p.is("string") && len(p.Enum) == 0 {
				found, fkind = k, KindInstruction
				break
			}
		}
	}
	if found != "" && found != "element" {
		if _, ok := s.props["element"]; ok && humanDesc("element") {
			describe = "element"
		}
	}
	return found, fkind, describe, in
}

func sortedKeys(m map[string]prop) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

func firstProp(s schema, names ...string) string {
	for _, n := range names {
		if _, ok := s.props[n]; ok {
			return n
		}
	}
	return ""
}

// contextArgs are required arguments of a page-scoped tool the session fills itself.
var contextArgs = []string{"pageId", "page_id", "tabId", "tab_id"}

// bind scores how well tool t (schema s) does capability c: 0 is not at all. What makes a tool fit
// a capability is capRules' row for c (data, tested row by row); bind only applies it.
func bind(c Capability, t Tool, s schema) (Binding, int) {
	rule, ok := ruleFor(c)
	if !ok {
		return Binding{}, 0
	}
	toks := tokens(t.Name)
	if hasAny(toks, rule.exclude...) {
		return Binding{}, 0
	}
	b := Binding{Tool: t.Name}
	if rule.element {
		b.Element, b.ElementKind, b.Describe, b.ElementIn = elementProp(s)
		if b.Element == "" && rule.byText {
			b.Element, b.ElementKind = textProp(s)
		}
		if b.Element == "" {
			return b, 0
		}
	}
	for _, a := range rule.args {
		v := firstProp(s, a.names...)
		if v == "" && a.required && !(a.notForInstruction && b.ElementKind == KindInstruction) {
			return b, 0
		}
		a.set(&b, v, s)
	}
	score := rule.score(toks, b.ElementKind)
	if score == 0 {
		return b, 0
	}
	if rule.fixed != nil {
		rule.fixed(&b, s)
	}
	if !fillsRequired(&b, s) {
		return b, 0 // a call trapline cannot make whole
	}
	b.Why = why(c, b)
	return b, score*10 - min(len(toks), 9) // the plainest name wins a tie: click over click_and_switch_tab
}

// fillsRequired reports whether every required argument of s is one b fills, a context argument (which
// it adds to b.Context) or a fixed value.
func fillsRequired(b *Binding, s schema) bool {
	filled := map[string]bool{b.Element: b.Element != "", b.Describe: b.Describe != "", b.Value: b.Value != "",
		b.URL: b.URL != "", b.Key: b.Key != "", b.Direction: b.Direction != "", b.Script: b.Script != ""}
	for k := range b.Fixed {
		filled[k] = true
	}
	for _, r := range s.required {
		switch {
		case filled[r]:
		case slices.Contains(contextArgs, r):
			b.Context = append(b.Context, r)
		default:
			return false
		}
	}
	return true
}

func why(c Capability, b Binding) string {
	var parts []string
	parts = append(parts, fmt.Sprintf("%s for %s", b.Tool, c))
	switch {
	case b.ElementIn != "":
		parts = append(parts, fmt.Sprintf("element as %s %q of a selector object in %q", b.ElementKind, b.ElementIn, b.Element))
	case b.Element != "":
		parts = append(parts, fmt.Sprintf("element as %s %q", b.ElementKind, b.Element))
	}
	for _, kv := range [][2]string{{"text", b.Value}, {"url", b.URL}, {"key", b.Key}, {"description", b.Describe}} {
		if kv[1] != "" {
			parts = append(parts, fmt.Sprintf("%s in %q", kv[0], kv[1]))
		}
	}
	if len(b.Context) > 0 {
		parts = append(parts, "context "+strings.Join(b.Context, ","))
	}
	return strings.Join(parts, "; ")
}

// ForAction is the capability a planner action needs; "" for done (no call).
func ForAction(k action.Kind) Capability {
	switch k {
	case action.Goto:
		return Navigate
	case action.Click:
		return Click
	case action.Fill:
		return Fill
	case action.Select:
		return Select
	case action.Press:
		return Press
	case action.Hover:
		return Hover
	case action.Scroll:
		return Scroll
	case action.Read:
		return Snapshot
	}
	return ""
}
