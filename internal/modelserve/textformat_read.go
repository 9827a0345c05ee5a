package modelserve

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"unicode"

	"github.com/trapline/trapline/agentkit/action"
)

// readTemplates reads the actions a prompt describes as lines: each call or bracketed line that
// starts a line of the prompt or stands between backticks, and each call written with examples only
// (`click(3)`, `goto("https://…")`) anywhere. An action's first signature (named parameters) gives
// its parameters; its examples say how they are written (quoted or bare, by keyword).
func readTemplates(prompt string) []template {
	var occ []template
	for _, m := range callRe.FindAllStringSubmatchIndex(prompt, -1) {
		tp := parseCall(prompt[m[2]:m[3]], prompt[m[4]:m[5]])
		if tp.sig && !standsAlone(prompt, m[0], m[1]) {
			continue // a name with parentheses in prose ("element(s)") is no signature
		}
		occ = append(occ, tp)
	}
	for _, m := range bracketRe.FindAllStringSubmatchIndex(prompt, -1) {
		if standsAlone(prompt, m[0], m[1]) {
			occ = append(occ, parseBracket(prompt[m[2]:m[3]], prompt[m[4]:m[5]]))
		}
	}
	return mergeTemplates(occ)
}

var leadRe = regexp.MustCompile("^[ \\t>*\\-•]*(?:\\d+[.)][ \\t]*)?[\"'`]*$")

// standsAlone says whether prompt[start:end] starts its line (after a bullet, a number or a quote)
// or stands between backticks.
func standsAlone(prompt string, start, end int) bool {
	ls := strings.LastIndexByte(prompt[:start], '\n') + 1
	if leadRe.MatchString(prompt[ls:start]) {
		return true
	}
	return start > 0 && prompt[start-1] == '`' && end < len(prompt) && prompt[end] == '`'
}

// splitArgs splits a parameter list at its top-level commas (not inside quotes or brackets).
func splitArgs(s string) []string {
	var out []string
	depth, quote, from := 0, byte(0), 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case quote != 0:
			if c == '\\' {
				i++
			} else if c == quote {
				quote = 0
			}
		case c == '\'' || c == '"':
			quote = c
		case c == '[' || c == '{' || c == '(':
			depth++
		case c == ']' || c == '}' || c == ')':
			depth--
		case c == ',' && depth == 0:
			out = append(out, strings.TrimSpace(s[from:i]))
			from = i + 1
		}
	}
	if rest := strings.TrimSpace(s[from:]); rest != "" || len(out) > 0 {
		out = append(out, rest)
	}
	return out
}

var (
	typedRe   = regexp.MustCompile(`^([A-Za-z_][A-Za-z0-9_]*)\s*:\s*([^=]*?)\s*(=.*)?$`)
	keywordRe = regexp.MustCompile(`^([A-Za-z_][A-Za-z0-9_]*)\s*=\s*(.+)$`)
	numberRe  = regexp.MustCompile(`^-?\d+(?:\.\d+)?$`)
)

// parseCall reads one call: a signature when every parameter is named (`click(bid: str, button:
// Literal[...] = 'left')`, `click(id)`, `click_element(index=3)`), else an example whose literals
// (name "") say how each position is written.
func parseCall(name, args string) template {
	tp := template{name: name, style: styleCall, sig: true}
	for _, a := range splitArgs(args) {
		var p tparam
		switch m, k := typedRe.FindStringSubmatch(a), keywordRe.FindStringSubmatch(a); {
		case a == "" || strings.HasPrefix(a, "*"):
			continue
		case m != nil:
			t := strings.ToLower(m[2])
			p = tparam{name: m[1], optional: m[3] != "", numeric: strings.HasPrefix(t, "int") || strings.HasPrefix(t, "float") || strings.HasPrefix(t, "number"),
				quoted: strings.HasPrefix(t, "str")}
		case k != nil:
			p = literalParam(k[2])
			p.name, p.keyword = k[1], true
		case identRe.MatchString(a) && !slices.Contains([]string{"True", "False", "None", "true", "false", "null"}, a):
			p = tparam{name: a}
		default:
			p, tp.sig = literalParam(a), false
		}
		tp.params = append(tp.params, p)
	}
	return tp
}

func literalParam(lit string) tparam {
	return tparam{numeric: numberRe.MatchString(lit), quoted: strings.HasPrefix(lit, "'") || strings.HasPrefix(lit, `"`)}
}

// parseBracket reads one bracketed line: `[name]` and `[name=a|b]` (optional) are parameters, any
// other argument (`[7]`, `[Carnegie Mellon University]`) an example's literal.
func parseBracket(name, args string) template {
	tp := template{name: name, style: styleBracket, sig: true}
	for _, m := range bracketArg.FindAllStringSubmatch(args, -1) {
		a := strings.TrimSpace(m[1])
		n, _, opt := strings.Cut(a, "=")
		switch {
		case identRe.MatchString(n) && strings.ToLower(n) == n:
			tp.params = append(tp.params, tparam{name: n, optional: opt})
		default:
			tp.params, tp.sig = append(tp.params, tparam{numeric: numberRe.MatchString(a)}), false
		}
	}
	return tp
}

// mergeTemplates makes one template per action name, in the order first described: its first
// signature, with what its examples say of each parameter; an action with examples only gets its
// parameters' names from its move and their positions (inferNames).
func mergeTemplates(occ []template) []template {
	groups, order := map[string][]template{}, []string{}
	for _, o := range occ {
		if _, ok := groups[o.name]; !ok {
			order = append(order, o.name)
		}
		groups[o.name] = append(groups[o.name], o)
	}
	var out []template
	for _, name := range order {
		same := groups[name]
		k := slices.IndexFunc(same, func(p template) bool { return p.sig })
		var tp template
		if k >= 0 {
			tp = same[k]
			tp.params = slices.Clone(tp.params)
		} else {
			tp = inferNames(same[0])
		}
		for _, ex := range same {
			if !ex.sig && ex.style == tp.style {
				tp.learn(ex)
			}
		}
		out = append(out, tp)
	}
	return out
}

// learn takes from an example how the template's parameters are written.
func (tp *template) learn(ex template) {
	for i, e := range ex.params {
		j := i
		if e.name != "" {
			j = slices.IndexFunc(tp.params, func(p tparam) bool { return p.name == e.name })
		}
		if j < 0 || j >= len(tp.params) {
			continue
		}
		p := &tp.params[j]
		p.numeric, p.quoted, p.keyword = p.numeric || e.numeric, p.quoted || e.quoted, p.keyword || e.keyword
	}
}

// inferNames names an example-only action's positional parameters by its move: the element first
// (for a click, hover, fill, select, a press with two), then the text, URL, key, direction or answer.
// A position it cannot name (a number where no element goes: `scroll(0, 200)`) stays required and
// unnamed by any grounded value, so that move is refused, never guessed.
func inferNames(ex template) template {
	tp := ex
	tp.params = slices.Clone(ex.params)
	var lits []int
	for i, p := range tp.params {
		if p.name == "" {
			lits = append(lits, i)
		}
	}
	var roles []string
	switch kindOf(tp.name) {
	case action.Click, action.Hover:
		roles = []string{"element"}
	case action.Fill, action.Select:
		roles = []string{"element", "text"}
		if len(lits) == 1 && tp.params[lits[0]].quoted && !tp.params[lits[0]].numeric {
			roles = []string{"text"}
		}
	case action.Goto:
		roles = []string{"url"}
	case action.Press:
		roles = []string{"key"}
		if len(lits) == 2 {
			roles = []string{"element", "key"}
		}
	case action.Scroll:
		roles = []string{"direction"}
	case action.Done:
		roles = []string{"answer"}
	}
	for n, i := range lits {
		p := &tp.params[i]
		switch {
		case n < len(roles) && (roles[n] == "element" || !p.numeric):
			p.name = roles[n]
		default:
			p.name = fmt.Sprintf("arg%d", n+1)
		}
	}
	return tp
}

// readRecord reads the record the prompt shows for its answer: consecutive <tag>…</tag> fields, or
// consecutive "Label: …" lines, one of them the action's. names are the action field's names when
// it lists them (`click|type|done`: the record holds the parameters), else nil (it holds a line).
func readRecord(prompt string) ([]field, []string) {
	spans := tagSpans(prompt)
	if rec, names, ok := recordOf(prompt, spans); ok {
		return rec, names
	}
	rec, names, _ := recordOf(prompt, labelSpans(prompt))
	return rec, names
}

// span is one field written in the prompt: its label, content and place.
type span struct {
	label, content string
	tag            bool
	start, end     int
}

// tagSpans are the prompt's <tag>…</tag> pairs (an opening tag and its nearest closing one).
func tagSpans(prompt string) []span {
	var out []span
	for _, m := range openTagRe.FindAllStringSubmatchIndex(prompt, -1) {
		label := prompt[m[2]:m[3]]
		end := "</" + label + ">"
		j := strings.Index(prompt[m[1]:], end)
		if j < 0 || j > 4000 {
			continue
		}
		out = append(out, span{label: label, content: prompt[m[1] : m[1]+j], tag: true, start: m[0], end: m[1] + j + len(end)})
	}
	return out
}

// labelSpans are the prompt's "Label: …" lines.
func labelSpans(prompt string) []span {
	var out []span
	at := 0
	for _, line := range strings.SplitAfter(prompt, "\n") {
		if m := labelRe.FindStringSubmatch(strings.TrimRight(line, "\r\n")); m != nil {
			out = append(out, span{label: strings.TrimSpace(m[1]), content: m[2], start: at, end: at + len(strings.TrimRight(line, "\r\n"))})
		}
		at += len(line)
	}
	return out
}

// recordOf finds the first action field among spans and the fields next to it (only blanks
// between), and reads their roles.
func recordOf(prompt string, spans []span) ([]field, []string, bool) {
	for k, s := range spans {
		if !slices.Contains(actionLabels, labelKey(s.label)) || strings.TrimSpace(s.content) == "" {
			continue // not the action's field, or a heading ("Actions:") over a list
		}
		run := []span{s}
		for i := k - 1; i >= 0; i-- {
			if spans[i].end > run[0].start {
				continue // a field around this one, or overlapping it
			}
			if strings.TrimSpace(prompt[spans[i].end:run[0].start]) != "" {
				break
			}
			run = append([]span{spans[i]}, run...)
		}
		for i := k + 1; i < len(spans); i++ {
			last := run[len(run)-1]
			if spans[i].start < last.end {
				continue // a field inside the last one
			}
			if strings.TrimSpace(prompt[last.end:spans[i].start]) != "" {
				break
			}
			run = append(run, spans[i])
		}
		names := nameList(s.content)
		var rec []field
		for _, r := range run {
			fl := field{label: r.label, tag: r.tag, role: fieldOmit}
			switch key := labelKey(r.label); {
			case r.start == s.start && names != nil:
				fl.role = fieldName
			case r.start == s.start:
				fl.role = fieldLine
			case slices.Contains(textLabels, key):
				fl.role = fieldText
			case names != nil && isParamWord(key):
				fl.role = fieldParam
			}
			if names == nil && r.start > s.start {
				break // a line record ends at its action: what follows (ReAct's Observation) is not the model's
			}
			rec = append(rec, fl)
		}
		return rec, names, true
	}
	return nil, nil, false
}

func isParamWord(label string) bool {
	for w := range paramWords {
		if paramIs(label, w) {
			return true
		}
	}
	return false
}

// nameList reads an action field's content as a list of action names ("click|type|goto|done",
// "one of: CLICK, TYPE, SELECT"); nil when it is no such list.
func nameList(content string) []string {
	c := strings.TrimSpace(content)
	if i := strings.LastIndexByte(c, ':'); i >= 0 && !strings.Contains(c[i:], "//") {
		c = c[i+1:]
	}
	c = strings.TrimSuffix(strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(c), "one of")), ".")
	parts := strings.FieldsFunc(strings.ReplaceAll(c, " or ", ","), func(r rune) bool { return r == '|' || r == ',' || r == '/' })
	var out []string
	for _, p := range parts {
		p = strings.TrimFunc(p, func(r rune) bool { return unicode.IsSpace(r) || strings.ContainsRune("\"'`[]()", r) })
		if !nameRe.MatchString(p) {
			return nil
		}
		out = append(out, p)
	}
	if len(out) < 2 {
		return nil
	}
	return out
}
