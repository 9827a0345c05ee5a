package policy

import (
	"errors"
	"math"
	"regexp"
	"regexp/syntax"
	"strconv"

	"go.yaml.in/yaml/v3"

	"github.com/trapline/trapline/internal/userfile"
)

// decoder walks a policy's yaml.Node tree: userfile.Decoder (the one value walker of every file a
// user writes: mappings, lists, single values, their problems) plus a policy's values and limits.
type decoder struct {
	userfile.Decoder
	items int  // list items decoded so far, against MaxTotalItems
	full  bool // MaxTotalItems was passed (reported once)
	insts int  // compiled pattern instructions so far, against MaxTotalPatternInsts
}

// newDecoder is the decoder of the policy file named file.
func newDecoder(file string) *decoder {
	return &decoder{Decoder: userfile.Decoder{File: file, Redact: RedactUserinfo}}
}

// handlers maps the keys a mapping accepts to the function decoding each value.
type handlers map[string]func(v *yaml.Node, field string)

// mapping decodes a mapping with h (userfile.Decoder.Mapping: unknown and duplicate keys), each
// value with aliases followed. A null value counts as an empty mapping. It returns the keys present,
// or nil when n is not a mapping.
func (d *decoder) mapping(n *yaml.Node, field string, h handlers) map[string]*yaml.Node {
	if n = userfile.Deref(n); userfile.IsNull(n) {
		return map[string]*yaml.Node{}
	}
	allowed := make(map[string]bool, len(h))
	for k := range h {
		allowed[k] = false
	}
	return d.Mapping(n, field, allowed, func(key string, v *yaml.Node, f string) { h[key](userfile.Deref(v), f) })
}

// sequence returns the items of a list; null counts as an empty list. ok is false on a wrong type.
func (d *decoder) sequence(n *yaml.Node, field string) (items []*yaml.Node, ok bool) {
	if n = userfile.Deref(n); userfile.IsNull(n) {
		return nil, true
	}
	if _, ok := d.Sequence(n, field); !ok {
		return nil, false
	}
	if len(n.Content) > MaxListItems {
		d.Fail(n, field, CodeTooLarge, "%d items, over the limit of %d items in one list (policy.MaxListItems)", len(n.Content), MaxListItems)
		return nil, false
	}
	if d.items += len(n.Content); d.items > MaxTotalItems {
		if !d.full {
			d.Fail(n, field, CodeTooLarge, "the policy's lists hold more than %d items together (policy.MaxTotalItems; an alias counts each time it is used)", MaxTotalItems)
		}
		d.full = true
		return nil, false
	}
	items = make([]*yaml.Node, len(n.Content))
	for i, c := range n.Content {
		items[i] = userfile.Deref(c)
	}
	return items, true
}

// str decodes a single value (userfile.Decoder.Scalar) that is a string.
func (d *decoder) str(n *yaml.Node, field string) (string, bool) {
	n = userfile.Deref(n)
	if _, ok := d.Scalar(n, field); !ok {
		return "", false
	}
	if n.ShortTag() != "!!str" {
		d.Fail(n, field, CodeWrongType, "want a string, got %s", userfile.KindName(n))
		return "", false
	}
	return n.Value, true
}

func (d *decoder) nonEmptyStr(n *yaml.Node, field string) (string, bool) {
	s, ok := d.str(n, field)
	if ok && s == "" {
		d.Fail(n, field, CodeEmpty, "must not be empty")
		return "", false
	}
	return s, ok
}

func (d *decoder) integer(n *yaml.Node, field string) (int, bool) {
	n = userfile.Deref(n)
	var v int
	if n.Kind != yaml.ScalarNode || n.ShortTag() != "!!int" || n.Decode(&v) != nil {
		d.Fail(n, field, CodeWrongType, "want an integer, got %s", userfile.KindName(n))
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
		d.Fail(n, field, CodeInvalidValue, "must be a positive integer, got %d", v)
		return 0, false
	case v > limit:
		d.Fail(n, field, CodeInvalidValue, "%d is too large (at most %d)", v, limit)
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
		d.Fail(n, field, CodeInvalidHost, "%v", err)
		return "", "", false
	}
	return host, port, true
}

// origin decodes a navigation.allow host entry: an optional scheme (http or https), a host and an
// optional port (splitScheme, NormalizeHost).
func (d *decoder) origin(n *yaml.Node, field string) (scheme, host, port string, ok bool) {
	s, ok := d.nonEmptyStr(n, field)
	if !ok {
		return "", "", "", false
	}
	scheme, rest, err := splitScheme(s)
	if err == nil {
		host, port, err = NormalizeHost(rest)
	}
	if err != nil {
		d.Fail(n, field, CodeInvalidHost, "%v", err)
		return "", "", "", false
	}
	return scheme, host, port, true
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
	d.Fail(n, field, CodeUnknownValue, "unknown value %q (want one of %s)", s, quoteList(allowed))
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
			d.Fail(n, field, CodeTooLarge, "regex %q compiles to %d instructions, over the limit of %d (policy.MaxPatternInsts)", excerpt(s), insts, MaxPatternInsts)
			return nil, false
		}
		if d.insts += insts; d.insts > MaxTotalPatternInsts {
			d.Fail(n, field, CodeTooLarge, "the policy's regexes compile to more than %d instructions together (policy.MaxTotalPatternInsts)", MaxTotalPatternInsts)
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
		d.Fail(n, field, CodeInvalidRegex, "invalid regex %q: %s", s, reason)
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
		v, good := item(it, userfile.Index(field, i))
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
