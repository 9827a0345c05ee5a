package modelserve

import (
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"unicode"
)

// An agent may describe its answer's shape in the prompt instead of sending it as a schema:
// magnitude-core 0.3.1 (BAML's ctx.output_format) writes "Answer in JSON using this schema:" and a
// TypeScript-like outline (`{ reasoning: string, actions: [ { variant: "mouse:click", x: int, y: int
// } or ... ] }`); browser-use with dontForceStructuredOutput puts its JSON schema in the system
// prompt between <json_schema> tags. describedShape reads either as a JSON schema and then as a
// union of action objects (parseShape), so the answer is built and validated like a sent schema's.
// No parser for BAML's outline exists in Go (it is rendered by BAML's Rust runtime): the small reader
// below covers the grammar BAML renders (objects, lists, "or" unions, literals, scalar types,
// comments).

var (
	bamlMarker = regexp.MustCompile(`(?i)Answer (?:in|with) (?:a )?JSON(?: Array)? using (?:this schema|any of these schemas):`)
	schemaTags = regexp.MustCompile(`(?s)<json_schema>\s*(\{.*?\})\s*</json_schema>`)
)

// describedShape reads the answer format a prompt describes. ok is false when the prompt describes
// none; err says why a described format cannot be played.
func describedShape(prompt string) (*shape, bool, error) {
	if m := schemaTags.FindStringSubmatch(prompt); m != nil {
		sh, err := parseShape(json.RawMessage(m[1]), "")
		if err != nil {
			return nil, true, fmt.Errorf("the prompt's <json_schema> answer format: %w", err)
		}
		return sh, true, nil
	}
	loc := bamlMarker.FindStringIndex(prompt)
	if loc == nil {
		return textShape(prompt) // a line or a record of text (textformat.go)
	}
	schema, err := parseOutline(prompt[loc[1]:])
	if err != nil {
		return nil, true, fmt.Errorf("the prompt describes its answer (%q) in a shape trapline cannot read: %w", prompt[loc[0]:loc[1]], err)
	}
	raw, _ := json.Marshal(schema)
	sh, err := parseShape(raw, "the prompt's answer format")
	if err != nil {
		return nil, true, fmt.Errorf("the prompt's answer format (%q): %w; trapline answers only in an agent's own action space", prompt[loc[0]:loc[1]], err)
	}
	return sh, true, nil
}

// outline reads BAML's rendered output format as a JSON schema.
type outline struct {
	src string
	pos int
}

func parseOutline(src string) (obj, error) {
	p := &outline{src: src}
	s, err := p.typ(0)
	if err != nil {
		return nil, fmt.Errorf("at character %d: %w", p.pos, err)
	}
	return s, nil
}

var errOutline = errors.New("not an answer outline")

// skip passes blanks and // comments.
func (p *outline) skip() {
	for p.pos < len(p.src) {
		switch {
		case unicode.IsSpace(rune(p.src[p.pos])):
			p.pos++
		case strings.HasPrefix(p.src[p.pos:], "//"):
			if i := strings.IndexByte(p.src[p.pos:], '\n'); i >= 0 {
				p.pos += i
			} else {
				p.pos = len(p.src)
			}
		default:
			return
		}
	}
}

func (p *outline) peek(tok string) bool {
	p.skip()
	return strings.HasPrefix(p.src[p.pos:], tok)
}

func (p *outline) eat(tok string) bool {
	if p.peek(tok) {
		p.pos += len(tok)
		return true
	}
	return false
}

// typ reads `atom ("or" atom)*`.
func (p *outline) typ(depth int) (obj, error) {
	if depth > 16 {
		return nil, fmt.Errorf("%w: nested too deep", errOutline)
	}
	var alts []any
	for {
		a, err := p.atom(depth)
		if err != nil {
			return nil, err
		}
		alts = append(alts, a)
		if !p.peek("or ") && !p.peek("or\n") && !p.peek("|") {
			break
		}
		if !p.eat("|") {
			p.pos += 2
		}
	}
	if len(alts) == 1 {
		return alts[0].(obj), nil
	}
	return obj{"anyOf": alts}, nil
}

var scalar = map[string]obj{
	"string": {"type": "string"}, "int": {"type": "integer"}, "float": {"type": "number"},
	"bool": {"type": "boolean"}, "null": {"type": "null"}, "image": {"type": "string"},
}

func (p *outline) atom(depth int) (obj, error) {
	var s obj
	var err error
	switch {
	case p.eat("{"):
		s, err = p.object(depth)
	case p.eat("["):
		var items obj
		if items, err = p.typ(depth + 1); err == nil && !p.eat("]") {
			err = fmt.Errorf("%w: a list without its \"]\"", errOutline)
		}
		s = obj{"type": "array", "items": items}
	case p.peek(`"`):
		var lit string
		lit, err = p.literal()
		s = obj{"type": "string", "const": lit}
	default:
		w := p.word()
		t, ok := scalar[w]
		if !ok {
			return nil, fmt.Errorf("%w: unknown type %q", errOutline, w)
		}
		s = obj{}
		for k, v := range t {
			s[k] = v
		}
	}
	if err != nil {
		return nil, err
	}
	for p.eat("[]") {
		s = obj{"type": "array", "items": s}
	}
	return s, nil
}

func (p *outline) object(depth int) (obj, error) {
	props, required := obj{}, []any{}
	for !p.eat("}") {
		key := p.word()
		if key == "" && p.peek(`"`) {
			key, _ = p.literal()
		}
		if key == "" || !p.eat(":") {
			return nil, fmt.Errorf("%w: a field without its name and \":\"", errOutline)
		}
		s, err := p.typ(depth + 1)
		if err != nil {
			return nil, fmt.Errorf("field %q: %w", key, err)
		}
		props[key], required = s, append(required, key)
		p.eat(",")
		if p.pos >= len(p.src) {
			return nil, fmt.Errorf("%w: an object without its \"}\"", errOutline)
		}
	}
	return obj{"type": "object", "properties": props, "required": required}, nil
}

func (p *outline) word() string {
	p.skip()
	start := p.pos
	for p.pos < len(p.src) {
		c := rune(p.src[p.pos])
		if !(unicode.IsLetter(c) || unicode.IsDigit(c) || c == '_' || c == '-') {
			break
		}
		p.pos++
	}
	return p.src[start:p.pos]
}

func (p *outline) literal() (string, error) {
	p.skip()
	end := strings.IndexByte(p.src[p.pos+1:], '"')
	if end < 0 {
		return "", fmt.Errorf("%w: an unterminated string", errOutline)
	}
	lit := p.src[p.pos+1 : p.pos+1+end]
	p.pos += end + 2
	return lit, nil
}
