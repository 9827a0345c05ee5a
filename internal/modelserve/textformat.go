package modelserve

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
)

// An agent may describe its answer as text rather than JSON:
//   - a function-call-like line: BrowserGym's action set (`fill(bid: str, value: str)` with examples
//     `fill('237', 'example value')`), `click_element(index=3)`, a custom agent's "- click(id) clicks
//     the element";
//   - a bracketed line: WebArena's `click [id]`, `type [id] [content] [press_enter_after=0|1]`;
//   - either inside a record the prompt shows: AgentLab's `<think>…</think>` then `<action>…</action>`,
//     ReAct's "Thought: …" then "Action: …", WebArena's fenced ```click [1234]```;
//   - a record whose fields are the action's name and its parameters:
//     `<action>click|type|goto|done</action><index>…</index><text>…</text>`.
//
// textShape reads the vocabulary (each action's name and its parameters, in order) and the record,
// and makes them a union of action objects ({name: {param: value}}), so the answer is chosen,
// grounded and checked like a schema's (structured_play.go); render writes it back in the described
// text. No Go library reads these prompt conventions; the readers below are small and bounded (a
// line's parameters, a record's consecutive fields).

type lineStyle int

const (
	styleCall    lineStyle = iota // name(arg, ...)
	styleBracket                  // name [arg] [arg]
)

// tparam is one parameter of a described action.
type tparam struct {
	name     string
	optional bool // has a default: left out when nothing grounded fills it
	numeric  bool // typed int/float, or an example writes it as a bare number
	quoted   bool // typed str, or an example quotes it
	keyword  bool // written name=value
}

// template is one described action.
type template struct {
	name   string
	style  lineStyle
	params []tparam
	sig    bool // read from a signature (named parameters), not inferred from an example
}

// fieldRole is what a record's field holds.
type fieldRole int

const (
	fieldText  fieldRole = iota // free text: the planner's reason
	fieldLine                   // the action's line (call or bracketed)
	fieldName                   // the action's name (a record of parameters)
	fieldParam                  // one parameter, named by the field's label
	fieldOmit                   // a field trapline has nothing grounded for
)

// field is one field of the record the answer is written in: <label>…</label> or "Label: …".
type field struct {
	label string
	tag   bool
	role  fieldRole
}

// textFormat is an answer format described in the prompt as text.
type textFormat struct {
	templates []template
	record    []field // nil: the bare line
	byName    bool    // the record names the action and holds its parameters (no line)
	fence     bool    // the prompt's examples write the line between ``` fences
	quote     byte    // the quote its call examples use
}

// textAnswer is an answer already written as the text the agent asked for (no JSON encoding).
type textAnswer string

// structuredText writes a structured decision as the message text: described text as it is, a
// schema's answer as JSON.
func structuredText(v any) string {
	if s, ok := v.(textAnswer); ok {
		return string(s)
	}
	b, _ := json.Marshal(v)
	return string(b)
}

var (
	// A call: a name, "(", no nested parentheses, ")".
	callRe = regexp.MustCompile(`([A-Za-z_][A-Za-z0-9_]*)\(([^()\n]*)\)`)
	// A bracketed line: a name and one or more [arguments].
	bracketRe  = regexp.MustCompile(`([A-Za-z_][A-Za-z0-9_]*)((?:[ \t]*\[[^\[\]\n]*\])+)`)
	bracketArg = regexp.MustCompile(`\[([^\[\]\n]*)\]`)
	// Where a described action starts a line: after blanks, bullets, numbering, a quote or a backtick.
	identRe   = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)
	nameRe    = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_:-]*$`)
	openTagRe = regexp.MustCompile(`<([A-Za-z_][A-Za-z0-9_-]*)>`)
	labelRe   = regexp.MustCompile(`^[ \t]*([A-Za-z][A-Za-z _-]{0,24}):[ \t]*(.*)$`)
)

// actionLabels name the field of a record that holds the action.
var actionLabels = []string{"action", "actions", "next_action", "action_type", "actiontype", "command", "operation", "act"}

// textLabels name a record's free-text fields, which get the planner's reason.
var textLabels = []string{"think", "thinking", "thought", "thoughts", "reasoning", "rationale", "explanation",
	"analysis", "plan", "memory", "evaluation", "next_goal", "goal", "observation_summary"}

func labelKey(s string) string {
	return strings.ToLower(strings.Join(strings.FieldsFunc(s, func(r rune) bool { return r == ' ' || r == '-' || r == '_' }), "_"))
}

// textShape reads an answer format the prompt describes as text. ok is false when it describes
// none; err says why a described one cannot be played.
func textShape(prompt string) (*shape, bool, error) {
	f := &textFormat{quote: quoteOf(prompt)}
	rec, names := readRecord(prompt)
	if names != nil {
		f.byName, f.record = true, rec
		for _, n := range names {
			f.templates = append(f.templates, template{name: n, sig: true})
		}
	} else {
		f.templates = readTemplates(prompt)
		f.record = rec
		f.fence = fenced(prompt, f.templates)
	}
	known := 0
	for _, tp := range f.templates {
		if kindOf(tp.name) != "" {
			known++
		}
	}
	if len(f.templates) < 2 || known == 0 {
		if rec != nil {
			return nil, true, fmt.Errorf("the prompt describes its answer as a record (%s) but names no actions trapline can read "+
				"(a line such as click(3), click_element(index=3) or click [3], or the action field's names such as click|type|done)", recordOutline(rec))
		}
		return nil, false, nil
	}
	sh, err := parseShape(f.schema(), "the prompt's answer format")
	if err != nil {
		return nil, true, fmt.Errorf("the prompt's text answer format (%s): %w", f.describe(), err)
	}
	sh.text = f
	return sh, true, nil
}

// schema is the format as a JSON schema: a union of {name: {params}} objects.
func (f *textFormat) schema() json.RawMessage {
	var alts []any
	for _, tp := range f.templates {
		props, req := obj{}, []any{}
		for _, p := range f.params(tp) {
			props[p.name] = obj{}
			if !p.optional {
				req = append(req, p.name)
			}
		}
		alts = append(alts, obj{"type": "object", "required": []any{tp.name},
			"properties": obj{tp.name: obj{"type": "object", "properties": props, "required": req}}})
	}
	b, _ := json.Marshal(obj{"anyOf": alts})
	return b
}

// params are a template's parameters: its own, or a record's parameter fields (all optional: the
// record holds the fields of every action).
func (f *textFormat) params(tp template) []tparam {
	if !f.byName {
		return tp.params
	}
	var out []tparam
	for _, fl := range f.record {
		if fl.role == fieldParam {
			out = append(out, tparam{name: fl.label, optional: true})
		}
	}
	return out
}

func (f *textFormat) describe() string {
	var names []string
	for _, tp := range f.templates {
		names = append(names, tp.name)
	}
	return strings.Join(names, ", ")
}

func recordOutline(rec []field) string {
	var parts []string
	for _, fl := range rec {
		if fl.tag {
			parts = append(parts, "<"+fl.label+">")
		} else {
			parts = append(parts, fl.label+":")
		}
	}
	return strings.Join(parts, " ")
}

// quoteOf is the quote the prompt's call examples use: ' when more of them open with it.
func quoteOf(prompt string) byte {
	if strings.Count(prompt, "('")+strings.Count(prompt, ", '") > strings.Count(prompt, `("`)+strings.Count(prompt, `, "`) {
		return '\''
	}
	return '"'
}

// fenced says whether the prompt writes a described action between ``` fences.
func fenced(prompt string, tps []template) bool {
	for i := strings.Index(prompt, "```"); i >= 0; {
		rest := strings.TrimLeft(prompt[i+3:], " \t\n")
		for _, tp := range tps {
			if strings.HasPrefix(rest, tp.name) && len(rest) > len(tp.name) && strings.ContainsRune("( [", rune(rest[len(tp.name)])) {
				return true
			}
		}
		j := strings.Index(prompt[i+3:], "```")
		if j < 0 {
			break
		}
		i += 3 + j
	}
	return false
}
