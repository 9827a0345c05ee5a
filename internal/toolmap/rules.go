package toolmap

import "slices"

// capRule is how the mapper recognises a tool for one capability: the words of the tool's name that
// rule it out, the words that make it (the first group that matches gives the score), and the
// arguments the call needs. The rules are data (capRules, one row per capability, a test per row):
// bind only applies them.
type capRule struct {
	cap Capability
	// element says the call names an element (elementProp finds the argument); byText that a
	// click({text}) naming the element by its visible text will do when the schema has no handle.
	element, byText bool
	// exclude are name words of look-alikes that do something else (a screenshot is no snapshot).
	exclude []string
	// words are the name's words that make the tool, best first; bonus adds 1 to the score.
	words []wordScore
	bonus []string
	// args are the non-element arguments, each found by its first name the schema has.
	args []argRule
	// fixed fills arguments the call always gets (navigate_page's type=url).
	fixed func(b *Binding, s schema)
}

// wordScore is a group of name words and the score a name with one of them gets.
type wordScore struct {
	score int
	words []string
	// instructionOnly counts the group only for a free-text instruction element (act, do, perform).
	instructionOnly bool
}

// argRule is one argument a call fills: the names it may have, whether the call needs it, and the
// Binding field it goes in.
type argRule struct {
	names    []string
	required bool
	// notForInstruction: a free-text instruction says the value itself, so it needs no argument.
	notForInstruction bool
	set               func(b *Binding, name string, s schema)
}

var instructionWords = wordScore{score: 3, words: []string{"act", "do", "perform", "interact"}, instructionOnly: true}

// capRules are the mapper's capability keywords: one row per capability, in Capabilities' order.
var capRules = []capRule{
	{cap: Navigate,
		exclude: []string{"back", "forward", "tab", "tabs", "close", "reload", "new", "wait", "download", "request", "requests", "screenshot"},
		words:   []wordScore{{score: 10, words: []string{"navigate", "goto", "visit"}}, {score: 6, words: []string{"open", "go", "load"}}},
		args:    []argRule{{names: []string{"url", "uri", "href", "address"}, required: true, set: func(b *Binding, n string, _ schema) { b.URL = n }}},
		fixed:   navigateFixed},
	{cap: Click, element: true, byText: true,
		exclude: []string{"drag", "double", "dblclick", "right"},
		words:   []wordScore{{score: 10, words: []string{"click", "tap"}}, instructionWords}},
	{cap: Fill, element: true,
		exclude: []string{"file", "upload", "page", "tab"},
		words: []wordScore{{score: 10, words: []string{"fill", "type"}}, {score: 8, words: []string{"input", "enter", "write"}},
			instructionWords},
		bonus: []string{"fill"}, // fill replaces a field's text, as trapline's fill does; type appends
		args: []argRule{{names: []string{"text", "value", "input", "content"}, required: true, notForInstruction: true,
			set: func(b *Binding, n string, _ schema) { b.Value = n }}}},
	{cap: Select, element: true,
		exclude: []string{"file", "upload", "page", "tab"},
		words:   []wordScore{{score: 10, words: []string{"select", "choose"}}, instructionWords},
		args: []argRule{{names: []string{"values", "value", "option", "label", "options"}, required: true, notForInstruction: true,
			set: func(b *Binding, n string, s schema) { b.Value, b.ValueArray = n, n != "" && s.props[n].is("array") }}}},
	{cap: Press,
		words: []wordScore{{score: 10, words: []string{"press", "key", "keyboard"}}},
		args:  []argRule{{names: []string{"key", "keys"}, required: true, set: func(b *Binding, n string, _ schema) { b.Key = n }}}},
	{cap: Hover, element: true, byText: true,
		words: []wordScore{{score: 10, words: []string{"hover"}}}},
	{cap: Scroll,
		words: []wordScore{{score: 10, words: []string{"scroll"}}},
		args:  []argRule{{names: []string{"direction"}, set: func(b *Binding, n string, _ schema) { b.Direction = n }}}},
	{cap: Snapshot,
		exclude: []string{"screenshot", "heapsnapshot", "pdf", "console", "network", "styles", "css", "performance"},
		words: []wordScore{{score: 10, words: []string{"snapshot"}}, {score: 9, words: []string{"clickable", "elements", "interactive"}},
			{score: 7, words: []string{"html"}}, {score: 6, words: []string{"text", "content", "markdown", "read", "extract", "observe"}}}},
	{cap: Script,
		exclude: []string{"file", "test", "tests", "python", "shell", "command", "terminal"},
		words:   []wordScore{{score: 10, words: []string{"evaluate", "eval", "javascript", "js", "script"}}, {score: 8, words: []string{"execute", "exec", "run"}}},
		args: []argRule{{names: []string{"script", "code", "expression", "js", "javascript", "function", "source"}, required: true,
			set: setScript}}},
}

// ruleFor is capRules' row for c.
func ruleFor(c Capability) (capRule, bool) {
	i := slices.IndexFunc(capRules, func(r capRule) bool { return r.cap == c })
	if i < 0 {
		return capRule{}, false
	}
	return capRules[i], true
}

// score is the score of a tool named toks whose element argument is of kind: the first word group
// the name has, plus the bonus; 0 when none.
func (r capRule) score(toks []string, kind ElementKind) int {
	for _, w := range r.words {
		if w.instructionOnly && kind != KindInstruction {
			continue
		}
		if hasAny(toks, w.words...) {
			if hasAny(toks, r.bonus...) {
				return w.score + 1
			}
			return w.score
		}
	}
	return 0
}

// navigateFixed fills a navigate tool's enum argument whose only fitting value is "url"
// (chrome-devtools-mcp's navigate_page type) and a headless switch (there is no display here: a
// headed launch fails).
func navigateFixed(b *Binding, s schema) {
	if p, ok := s.props["type"]; ok && len(p.Enum) > 0 && slices.Contains(p.Enum, any("url")) {
		b.Fixed = map[string]any{"type": "url"}
	}
	if p, ok := s.props["headless"]; ok && p.is("boolean") {
		if b.Fixed == nil {
			b.Fixed = map[string]any{}
		}
		b.Fixed["headless"] = true
	}
}

// setScript binds a script tool's code argument; one named "function" (Playwright MCP's
// browser_evaluate, chrome-devtools-mcp's evaluate_script) takes a function declaration, any other an
// expression.
func setScript(b *Binding, n string, _ schema) {
	b.Script, b.ScriptAsFunction = n, n == "function"
}

// textArgs are the names a click or hover argument has when it takes the element's visible text.
var textArgs = []string{"text", "label", "linkText", "link_text", "visibleText", "visible_text", "elementText", "element_text"}

// textProp finds an argument that names an element by its visible text: click({text}).
func textProp(s schema) (string, ElementKind) {
	for _, k := range textArgs {
		if p, ok := s.props[k]; ok && (p.is("string") || p.Type == nil) && len(p.Enum) == 0 {
			return k, KindText
		}
	}
	return "", ""
}
