package policy

import (
	"errors"
	"fmt"
	"math"
	"regexp"
	"regexp/syntax"
	"strconv"

	"go.yaml.in/yaml/v3"
)

// decoder walks a yaml.Node tree and collects every problem as an *Error.
type decoder struct {
	file  string
	errs  Errors
	items int  // list items decoded so far, against MaxTotalItems
	full  bool // MaxTotalItems was passed (reported once)
	insts int  // compiled pattern instructions so far, against MaxTotalPatternInsts
}

// handlers maps the keys a mapping accepts to the function decoding each value.
type handlers map[string]func(v *yaml.Node, field string)

func (d *decoder) fail(n *yaml.Node, field string, code Code, format string, args ...any) {
	line, col := 0, 0
	if n != nil {
		line, col = n.Line, n.Column
	}
	d.errs = append(d.errs, &Error{File: d.file, Line: line, Column: col, Field: field, Code: code, Reason: RedactUserinfo(fmt.Sprintf(format, args...))})
}

// deref follows aliases to the node they name.
func deref(n *yaml.Node) *yaml.Node {
	for n != nil && n.Kind == yaml.AliasNode {
		n = n.Alias
	}
	return n
}

func isNull(n *yaml.Node) bool {
	return n.Kind == yaml.ScalarNode && n.ShortTag() == "!!null"
}

// kindName describes a node for wrong-type messages.
func kindName(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	case yaml.ScalarNode:
		switch n.ShortTag() {
		case "!!str":
			return fmt.Sprintf("the string %q", n.Value)
		case "!!int":
			return "the integer " + n.Value
		case "!!bool":
			return "the boolean " + n.Value
		case "!!float":
			return "the number " + n.Value
		case "!!null":
			return "nothing (null)"
		}
		return fmt.Sprintf("%s %q", n.ShortTag(), n.Value)
	}
	return "an unsupported node"
}

func join(parent, key string) string {
	if parent == "" {
		return key
	}
	return parent + "." + key
}

func index(parent string, i int) string { return fmt.Sprintf("%s[%d]", parent, i) }

// mapping decodes a mapping with h, reporting unknown and duplicate keys. A null value counts as an
// empty mapping. It returns the keys present, or nil when n is not a mapping.
func (d *decoder) mapping(n *yaml.Node, field string, h handlers) map[string]*yaml.Node {
	n = deref(n)
	if isNull(n) {
		return map[string]*yaml.Node{}
	}
	if n.Kind != yaml.MappingNode {
		d.fail(n, field, CodeWrongType, "expected a mapping, got %s", kindName(n))
		return nil
	}
	seen := make(map[string]*yaml.Node, len(n.Content)/2)
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := deref(n.Content[i]), n.Content[i+1]
		if k.Kind != yaml.ScalarNode || k.ShortTag() != "!!str" {
			d.fail(k, field, CodeWrongType, "keys must be strings, got %s", kindName(k))
			continue
		}
		f := join(field, k.Value)
		if prev, dup := seen[k.Value]; dup {
			d.fail(k, f, CodeDuplicateKey, "key %q already given at line %d", k.Value, prev.Line)
			continue
		}
		seen[k.Value] = k
		fn, known := h[k.Value]
		if !known {
			d.fail(k, f, CodeUnknownKey, "unknown key %q", k.Value)
			continue
		}
		fn(deref(v), f)
	}
	return seen
}

// sequence returns the items of a list; null counts as an empty list. ok is false on a wrong type.
func (d *decoder) sequence(n *yaml.Node, field string) (items []*yaml.Node, ok bool) {
	n = deref(n)
	if isNull(n) {
		return nil, true
	}
	if n.Kind != yaml.SequenceNode {
		d.fail(n, field, CodeWrongType, "expected a list, got %s", kindName(n))
		return nil, false
	}
	if len(n.Content) > MaxListItems {
		d.fail(n, field, CodeTooLarge, "%d items, over the limit of %d items in one list (policy.MaxListItems)", len(n.Content), MaxListItems)
		return nil, false
	}
	if d.items += len(n.Content); d.items > MaxTotalItems {
		if !d.full {
			d.fail(n, field, CodeTooLarge, "the policy's lists hold more than %d items together (policy.MaxTotalItems; an alias counts each time it is used)", MaxTotalItems)
		}
		d.full = true
		return nil, false
	}
	items = make([]*yaml.Node, len(n.Content))
	for i, c := range n.Content {
		items[i] = deref(c)
	}
	return items, true
}

func (d *decoder) str(n *yaml.Node, field string) (string, bool) {
	n = deref(n)
	if n.Kind != yaml.ScalarNode || n.ShortTag() != "!!str" {
		d.fail(n, field, CodeWrongType, "expected a string, got %s", kindName(n))
		return "", false
	}
	return n.Value, true
}

func (d *decoder) nonEmptyStr(n *yaml.Node, field string) (string, bool) {
	s, ok := d.str(n, field)
	if ok && s == "" {
		d.fail(n, field, CodeEmpty, "must not be empty")
		return "", false
	}
	return s, ok
}

func (d *decoder) integer(n *yaml.Node, field string) (int, bool) {
	n = deref(n)
	var v int
	if n.Kind != yaml.ScalarNode || n.ShortTag() != "!!int" || n.Decode(&v) != nil {
		d.fail(n, field, CodeWrongType, "expected an integer, got %s", kindName(n))
		return 0, false
	}
	return v, true
}

// positive decodes a budget value: an integer of at least 1 and at most limit.
func (d *decoder) positive(n *yaml.Node, field string, limit int) (int, bool) {
	v, ok := d.integer(n, field)
	switch {
	case !ok:
		return 0, false
	case v <= 0:
		d.fail(n, field, CodeInvalidValue, "must be a positive integer, got %d", v)
		return 0, false
	case v > limit:
		d.fail(n, field, CodeInvalidValue, "%d is too large (at most %d)", v, limit)
		return 0, false
	}
	return v, true
}

// host decodes a non-empty host or host:port and normalises it (NormalizeHost); one that does not
// normalise is CodeInvalidHost.
func (d *decoder) host(n *yaml.Node, field string) (host, port string, ok bool) {
	s, ok := d.nonEmptyStr(n, field)
	if !ok {
		return "", "", false
	}
	host, port, err := NormalizeHost(s)
	if err != nil {
		d.fail(n, field, CodeInvalidHost, "%v", err)
		return "", "", false
	}
	return host, port, true
}

// enum decodes a string that must be one of allowed.
func (d *decoder) enum(n *yaml.Node, field string, allowed ...string) (string, bool) {
	s, ok := d.str(n, field)
	if !ok {
		return "", false
	}
	for _, a := range allowed {
		if s == a {
			return s, true
		}
	}
	d.fail(n, field, CodeUnknownValue, "unknown value %q (want one of %s)", s, quoteList(allowed))
	return "", false
}

// pattern decodes and compiles a regex.
func (d *decoder) pattern(n *yaml.Node, field string) (*Pattern, bool) {
	s, ok := d.str(n, field)
	if !ok {
		return nil, false
	}
	if insts, ok := progSize(s); ok {
		if insts > MaxPatternInsts {
			d.fail(n, field, CodeTooLarge, "regex %q compiles to %d instructions, over the limit of %d (policy.MaxPatternInsts)", excerpt(s), insts, MaxPatternInsts)
			return nil, false
		}
		if d.insts += insts; d.insts > MaxTotalPatternInsts {
			d.fail(n, field, CodeTooLarge, "the policy's regexes compile to more than %d instructions together (policy.MaxTotalPatternInsts)", MaxTotalPatternInsts)
			return nil, false
		}
	}
	re, err := regexp.Compile(s)
	if err != nil {
		reason := err.Error()
		var se *syntax.Error
		if errors.As(err, &se) {
			reason = se.Code.String()
		}
		d.fail(n, field, CodeInvalidRegex, "invalid regex %q: %s", s, reason)
		return nil, false
	}
	return &Pattern{Source: s, re: re}, true
}

// progSize is the number of instructions s compiles to, as regexp.Compile would (Perl syntax,
// simplified); ok is false when s does not parse (regexp.Compile then says why).
func progSize(s string) (int, bool) {
	re, err := syntax.Parse(s, syntax.Perl)
	if err != nil {
		return 0, false
	}
	prog, err := syntax.Compile(re.Simplify())
	if err != nil {
		return 0, false
	}
	return len(prog.Inst), true
}

// excerpt shortens a long value for a message.
func excerpt(s string) string {
	if len(s) <= 80 {
		return s
	}
	return s[:77] + "..."
}

// patterns decodes a list of regexes.
func (d *decoder) patterns(n *yaml.Node, field string) []*Pattern {
	out, _ := list(d, n, field, d.pattern)
	if out == nil {
		out = []*Pattern{}
	}
	return out
}

// list decodes the YAML list n, each item with item under its indexed field (field[i]). It returns
// the items that decoded, and false when n is not a list or any item failed; every failure is
// already recorded by the decoder with its line and field.
func list[T any](d *decoder, n *yaml.Node, field string, item func(*yaml.Node, string) (T, bool)) ([]T, bool) {
	items, ok := d.sequence(n, field)
	var out []T
	for i, it := range items {
		v, good := item(it, index(field, i))
		if !good {
			ok = false
			continue
		}
		out = append(out, v)
	}
	return out, ok
}

func quoteList(xs []string) string {
	s := ""
	for i, x := range xs {
		if i > 0 {
			s += ", "
		}
		s += strconv.Quote(x)
	}
	return s
}

// maxSeconds keeps second budgets representable as a time.Duration.
const maxSeconds = math.MaxInt64 / int64(1e9)

// require reports each of keys that the mapping n (whose present keys are seen, as mapping returns
// them) lacks as CodeMissing at field.key; it returns whether all were there.
func (d *decoder) require(n *yaml.Node, field string, seen map[string]*yaml.Node, keys ...string) bool {
	ok := true
	for _, k := range keys {
		if _, present := seen[k]; !present {
			d.fail(n, join(field, k), CodeMissing, "%s is missing", k)
			ok = false
		}
	}
	return ok
}
