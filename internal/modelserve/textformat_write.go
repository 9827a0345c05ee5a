package modelserve

import (
	"fmt"
	"strconv"
	"strings"
)

// render writes a validated answer ({name: {param: value}}) in the described text: the line (or
// the record of the action's name and parameters), in the record the prompt shows, its free-text
// fields the planner's reason; a value the format cannot carry (a newline, the format's own
// delimiter) is an error, never cut.
func (f *textFormat) render(ans any, reason string) (textAnswer, error) {
	o, _ := ans.(obj)
	if len(o) != 1 {
		return "", fmt.Errorf("the answer %v is no single action", ans)
	}
	var name string
	var vals obj
	for k, v := range o {
		name, vals = k, asObj(v)
	}
	reason = strings.Join(strings.Fields(strings.ReplaceAll(reason, "`", "'")), " ")
	if f.byName {
		return f.writeRecord(name, vals, reason, "")
	}
	i := -1
	for j, tp := range f.templates {
		if tp.name == name {
			i = j
		}
	}
	if i < 0 {
		return "", fmt.Errorf("no described action %q", name)
	}
	line, err := f.line(f.templates[i], vals)
	switch {
	case err != nil:
		return "", err
	case f.record != nil:
		return f.writeRecord(name, vals, reason, line)
	case f.fence:
		return textAnswer(reason + "\n\n```" + line + "```"), nil
	}
	return textAnswer(line), nil
}

// line writes one action as a call or a bracketed line, its parameters in the described order; an
// optional parameter with no value is left out (a later one then by keyword in a call; in a
// bracketed line, which has no keywords, a later one is an error).
func (f *textFormat) line(tp template, vals obj) (string, error) {
	var parts []string
	skipped := false
	for _, p := range tp.params {
		v, ok := vals[p.name]
		if !ok {
			if !p.optional {
				return "", fmt.Errorf("%s's parameter %q has no value", tp.name, p.name)
			}
			skipped = true
			continue
		}
		if tp.style == styleBracket {
			if skipped {
				return "", fmt.Errorf("%s [%s] cannot be written after a parameter left out", tp.name, p.name)
			}
			s, err := plain(v, "[]")
			if err != nil {
				return "", fmt.Errorf("%s's %s: %w", tp.name, p.name, err)
			}
			parts = append(parts, "["+s+"]")
			continue
		}
		s, err := f.literal(p, v)
		if err != nil {
			return "", fmt.Errorf("%s's %s: %w", tp.name, p.name, err)
		}
		if p.keyword || skipped {
			s = p.name + "=" + s
		}
		parts = append(parts, s)
	}
	if tp.style == styleBracket {
		return strings.TrimSpace(tp.name + " " + strings.Join(parts, " ")), nil
	}
	return tp.name + "(" + strings.Join(parts, ", ") + ")", nil
}

// literal writes a call's argument: a number bare unless the parameter is written quoted, a string
// quoted (in the prompt's quote) unless the parameter is a number and the string one, a point as a
// list.
func (f *textFormat) literal(p tparam, v any) (string, error) {
	switch x := v.(type) {
	case int:
		if p.quoted && !p.numeric {
			return f.quoted(strconv.Itoa(x)), nil
		}
		return strconv.Itoa(x), nil
	case float64:
		return f.literal(p, int(x))
	case string:
		if p.numeric && !p.quoted && numberRe.MatchString(x) {
			return x, nil
		}
		return f.quoted(x), nil
	case []any:
		var items []string
		for _, it := range x {
			s, err := f.literal(tparam{numeric: true}, it)
			if err != nil {
				return "", err
			}
			items = append(items, s)
		}
		return "[" + strings.Join(items, ", ") + "]", nil
	}
	return "", fmt.Errorf("a value of type %T cannot be written in the described line", v)
}

// quoted writes s in the prompt's quote, escaping it and backslashes as Python and JavaScript read
// them.
func (f *textFormat) quoted(s string) string {
	q := string(f.quote)
	r := strings.NewReplacer(`\`, `\\`, q, `\`+q, "\n", `\n`, "\r", `\r`, "\t", `\t`)
	return q + r.Replace(s) + q
}

// plain writes a value as bare text; one holding a newline or one of the format's delimiters is an
// error.
func plain(v any, delims string) (string, error) {
	var s string
	switch x := v.(type) {
	case int:
		s = strconv.Itoa(x)
	case float64:
		s = strconv.Itoa(int(x))
	case string:
		s = x
	default:
		return "", fmt.Errorf("a value of type %T cannot be written as text", v)
	}
	if strings.ContainsAny(s, "\r\n"+delims) {
		return "", fmt.Errorf("the value %q holds a newline or one of %q, which the described format cannot carry", s, delims)
	}
	return s, nil
}

// writeRecord writes the record: each field in the prompt's order, <label>value</label> or
// "Label: value", one a line; a field with no value is left out.
func (f *textFormat) writeRecord(name string, vals obj, reason, line string) (textAnswer, error) {
	var b strings.Builder
	for _, fl := range f.record {
		var v string
		switch fl.role {
		case fieldText:
			v = reason
		case fieldLine:
			v = line
		case fieldName:
			v = name
		case fieldParam:
			val, ok := vals[fl.label]
			if !ok {
				continue
			}
			s, err := plain(val, "<")
			if err != nil {
				return "", fmt.Errorf("%s's %s: %w", name, fl.label, err)
			}
			v = s
		default:
			continue
		}
		if b.Len() > 0 {
			b.WriteString("\n")
		}
		if fl.tag {
			fmt.Fprintf(&b, "<%s>%s</%s>", fl.label, v, fl.label)
		} else {
			fmt.Fprintf(&b, "%s: %s", fl.label, v)
		}
	}
	return textAnswer(b.String()), nil
}
