package userfile

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

// Code classifies a problem in a file (and, as agentkit's one error-code type, policy.Code, errors
// of observe and act too). A Code is itself an error, and an *Error unwraps to its Code, so
// errors.Is(err, CodeUnknownKey) works on a policy's, a pack's and a login file's errors alike.
type Code string

// Error returns the code's text.
func (c Code) Error() string { return string(c) }

// The codes every kind of file shares; a kind adds its own (policy.CodeInvalidRegex, ...).
const (
	CodeSyntax       Code = "yaml syntax error" // the file is not valid YAML, or not one document
	CodeUnknownKey   Code = "unknown key"       // a key the schema does not know
	CodeDuplicateKey Code = "duplicate key"     // a key given twice in one mapping
	CodeWrongType    Code = "wrong type"        // e.g. a string where a list is expected
	CodeMissing      Code = "missing field"     // a required field is absent
	CodeEmpty        Code = "empty"             // a file, list or string that must not be empty
	CodeTooLarge     Code = "too large"         // a file, list or value over its limit
	CodeInvalidValue Code = "invalid value"     // a value of the right type that is not accepted
)

// Error is one problem in a file a user wrote, located as file:line: field: reason. A policy's, a
// trap pack's and a login file's problems are all this type (policy.Error, traps.PackError and
// credentials.Error name it).
type Error struct {
	// File is the file's path as given (or a name such as embedded:reference.yml).
	File string
	// Line is the 1-based line of the offending node; 0 when the problem is the file as a whole.
	Line int
	// Column is the 1-based column of the offending node; 0 when it is not known (a YAML syntax
	// error, whose parser gives the line only) or the problem is the file as a whole.
	Column int
	// Field is the dotted path of the field, e.g. navigation.allow[0].paths[1]; "" for the whole file.
	Field string
	// Code classifies the problem; "" when the kind of file has no code for it.
	Code Code
	// Reason says what is wrong and, where it can, what is expected. It never quotes a secret.
	Reason string
	// Err is the cause when there is one to match (a *TooLargeError); nil otherwise.
	Err error
	// Family is the kind of file's sentinel (traps.ErrPack, credentials.ErrLoginFile), nil if none:
	// errors.Is(err, traps.ErrPack) tells a pack's problem from a policy's.
	Family error
}

// Error renders file:line:column: field: reason (no line when 0, no column when 0 or without a line,
// no field when "").
func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString(e.File)
	if e.Line > 0 {
		fmt.Fprintf(&b, ":%d", e.Line)
		if e.Column > 0 {
			fmt.Fprintf(&b, ":%d", e.Column)
		}
	}
	b.WriteString(": ")
	if e.Field != "" {
		b.WriteString(e.Field)
		b.WriteString(": ")
	}
	b.WriteString(e.Reason)
	return b.String()
}

// Unwrap returns the error's Family, Code and cause Err, those that are set.
func (e *Error) Unwrap() []error {
	var out []error
	for _, err := range []error{e.Family, e.Code, e.Err} {
		if err != nil && err != Code("") {
			out = append(out, err)
		}
	}
	return out
}

// Errors is every problem found in one or more files, in order. Loaders return it (never an empty
// one) and load nothing when there is one.
type Errors []*Error

// Error returns one line per problem.
func (es Errors) Error() string {
	lines := make([]string, len(es))
	for i, e := range es {
		lines[i] = e.Error()
	}
	return strings.Join(lines, "\n")
}

// Unwrap exposes each *Error to errors.Is and errors.As.
func (es Errors) Unwrap() []error {
	out := make([]error, len(es))
	for i, e := range es {
		out[i] = e
	}
	return out
}

// Sort orders es by file, then line (stable).
func (es Errors) Sort() {
	sort.SliceStable(es, func(i, j int) bool {
		if es[i].File != es[j].File {
			return es[i].File < es[j].File
		}
		return es[i].Line < es[j].Line
	})
}

// yamlLine extracts the line from a yaml.v3 syntax error ("yaml: line 3: ...").
var yamlLine = regexp.MustCompile(`^yaml: line (\d+): (.*)$`)

// Document is the one strict YAML reader of the files users write: data must be exactly one YAML
// document, not empty. It returns the document's root node, or an *Error at the syntax error's line
// (CodeSyntax), for an empty file (CodeEmpty) or for a second document (CodeSyntax).
func Document(file string, data []byte) (*yaml.Node, *Error) {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var doc yaml.Node
	if err := dec.Decode(&doc); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, &Error{File: file, Code: CodeEmpty, Reason: "the file is empty"}
		}
		return nil, syntaxError(file, err)
	}
	var extra yaml.Node
	switch err := dec.Decode(&extra); {
	case errors.Is(err, io.EOF):
	case err != nil:
		return nil, syntaxError(file, err)
	default:
		return nil, &Error{File: file, Line: extra.Line, Column: extra.Column, Code: CodeSyntax, Reason: "more than one YAML document; the file is one document"}
	}
	if len(doc.Content) != 1 {
		return nil, &Error{File: file, Line: doc.Line, Code: CodeEmpty, Reason: "the file is empty"}
	}
	return doc.Content[0], nil
}

func syntaxError(file string, err error) *Error {
	e := &Error{File: file, Code: CodeSyntax, Reason: err.Error()}
	if m := yamlLine.FindStringSubmatch(err.Error()); m != nil {
		e.Line, _ = strconv.Atoi(m[1])
		e.Reason = m[2]
	}
	return e
}

// Decoder is the one value walker of the files users write (a policy, a trap file, a login file): it
// walks the YAML nodes Document returns and collects every problem as an *Error in File, with the same
// code and wording for the same problem whatever the kind of file. A kind's own decoder embeds it and
// adds its values (patterns, hosts, rules).
type Decoder struct {
	// File names the file in every Error.
	File string
	// Family is set on every Error (traps.ErrPack, credentials.ErrLoginFile); nil for none.
	Family error
	// Redact, when set, rewrites every reason before it is kept (a policy takes the password out of
	// a URL written into a host).
	Redact func(string) string
	// Errs is every problem found so far, in the order found.
	Errs Errors
}

// Fail records a problem at n (its line and column; the whole file when n is nil) and returns it.
func (d *Decoder) Fail(n *yaml.Node, field string, code Code, format string, args ...any) *Error {
	line, col := 0, 0
	if n != nil {
		line, col = n.Line, n.Column
	}
	reason := fmt.Sprintf(format, args...)
	if d.Redact != nil {
		reason = d.Redact(reason)
	}
	e := &Error{File: d.File, Line: line, Column: col, Field: field, Code: code, Reason: reason, Family: d.Family}
	d.Errs = append(d.Errs, e)
	return e
}

// Add records problems found by another reader (Document's), setting their Family.
func (d *Decoder) Add(errs ...*Error) {
	for _, e := range errs {
		if e.Family == nil {
			e.Family = d.Family
		}
		d.Errs = append(d.Errs, e)
	}
}

// Mapping checks that n is a mapping of string keys, each one of allowed (true marks a required
// key), none given twice and no required one missing, and calls each, in document order, with every
// accepted key, its value (an alias not followed) and its field (field.key). It returns the keys
// present (the key nodes), or nil when n is not a mapping. A nil n is an absent mapping: nothing is
// checked.
func (d *Decoder) Mapping(n *yaml.Node, field string, allowed map[string]bool, each func(key string, v *yaml.Node, field string)) map[string]*yaml.Node {
	if n == nil {
		return nil
	}
	n = Deref(n)
	if n.Kind != yaml.MappingNode {
		d.Fail(n, field, CodeWrongType, "want a mapping, got %s", KindName(n))
		return nil
	}
	seen := make(map[string]*yaml.Node, len(n.Content)/2)
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := Deref(n.Content[i]), n.Content[i+1]
		if k.Kind != yaml.ScalarNode || k.ShortTag() != "!!str" {
			d.Fail(k, field, CodeWrongType, "keys must be strings, got %s", KindName(k))
			continue
		}
		f := Join(field, k.Value)
		if prev, dup := seen[k.Value]; dup {
			d.Fail(k, f, CodeDuplicateKey, "key %q already given at line %d", k.Value, prev.Line)
			continue
		}
		seen[k.Value] = k
		if _, ok := allowed[k.Value]; !ok {
			d.Fail(k, f, CodeUnknownKey, "unknown key %q (want one of %s)", k.Value, keyList(allowed))
			continue
		}
		if each != nil {
			each(k.Value, v, f)
		}
	}
	var missing []string
	for k, req := range allowed {
		if req && seen[k] == nil {
			missing = append(missing, k)
		}
	}
	sort.Strings(missing)
	d.Require(n, field, seen, missing...)
	return seen
}

// Keys is Mapping returning the values by key.
func (d *Decoder) Keys(n *yaml.Node, field string, allowed map[string]bool) map[string]*yaml.Node {
	out := map[string]*yaml.Node{}
	d.Mapping(n, field, allowed, func(key string, v *yaml.Node, _ string) { out[key] = v })
	return out
}

// Require reports each of keys that the mapping n (whose present keys are seen, as Mapping returns
// them) lacks as CodeMissing at field.key; it returns whether all were there.
func (d *Decoder) Require(n *yaml.Node, field string, seen map[string]*yaml.Node, keys ...string) bool {
	ok := true
	for _, k := range keys {
		if _, present := seen[k]; !present {
			d.Fail(n, Join(field, k), CodeMissing, "required field is missing")
			ok = false
		}
	}
	return ok
}

// Scalar returns n's value when n is a single value (a scalar, not null); anything else is
// CodeWrongType. It never quotes the value (a login file's may be a password). A nil n is absent: "".
func (d *Decoder) Scalar(n *yaml.Node, field string) (string, bool) {
	if n == nil {
		return "", false
	}
	if n.Kind != yaml.ScalarNode || IsNull(n) {
		d.Fail(n, field, CodeWrongType, "want a single value, got %s", KindName(n))
		return "", false
	}
	return n.Value, true
}

// Sequence returns the items of a list; anything else is CodeWrongType (ok false). A nil n is an
// absent list: no items, ok.
func (d *Decoder) Sequence(n *yaml.Node, field string) (items []*yaml.Node, ok bool) {
	if n == nil {
		return nil, true
	}
	if n = Deref(n); n.Kind != yaml.SequenceNode {
		d.Fail(n, field, CodeWrongType, "want a list, got %s", KindName(n))
		return nil, false
	}
	return n.Content, true
}

// Deref follows aliases to the node they name.
func Deref(n *yaml.Node) *yaml.Node {
	for n != nil && n.Kind == yaml.AliasNode {
		n = n.Alias
	}
	return n
}

// IsNull says whether n is YAML's null (~, null or nothing).
func IsNull(n *yaml.Node) bool {
	return n.Kind == yaml.ScalarNode && n.ShortTag() == "!!null"
}

// KindName describes a node for wrong-type messages. A string's value is quoted: a caller whose
// values may be secret asks only of nodes that are not strings (Scalar does).
func KindName(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	case yaml.AliasNode:
		return "an alias"
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

func keyList(m map[string]bool) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return strings.Join(keys, ", ")
}

// Join is the field path of key under parent (parent.key; key alone at the top).
func Join(parent, key string) string {
	if parent == "" {
		return key
	}
	return parent + "." + key
}

// Index is the field path of item i of the list at parent (parent[i]).
func Index(parent string, i int) string { return fmt.Sprintf("%s[%d]", parent, i) }
