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

// Keys checks that n is a mapping of string keys, each one of allowed (true marks a required key),
// none given twice and no required one missing, and returns the values by key. Each problem is an
// *Error in file at field (a key's field is field.key).
func Keys(file string, n *yaml.Node, field string, allowed map[string]bool) (map[string]*yaml.Node, Errors) {
	var errs Errors
	fail := func(at *yaml.Node, f string, code Code, format string, args ...any) {
		errs = append(errs, &Error{File: file, Line: at.Line, Column: at.Column, Field: f, Code: code, Reason: fmt.Sprintf(format, args...)})
	}
	out := map[string]*yaml.Node{}
	if n.Kind != yaml.MappingNode {
		fail(n, field, CodeWrongType, "want a mapping with keys %s", keyList(allowed))
		return out, errs
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if _, ok := allowed[k.Value]; !ok || k.Kind != yaml.ScalarNode {
			fail(k, join(field, k.Value), CodeUnknownKey, "unknown key (want one of %s)", keyList(allowed))
			continue
		}
		if _, dup := out[k.Value]; dup {
			fail(k, join(field, k.Value), CodeDuplicateKey, "given twice")
			continue
		}
		out[k.Value] = v
	}
	var missing []string
	for k, req := range allowed {
		if req && out[k] == nil {
			missing = append(missing, k)
		}
	}
	sort.Strings(missing)
	for _, k := range missing {
		fail(n, join(field, k), CodeMissing, "required field is missing")
	}
	return out, errs
}

func keyList(m map[string]bool) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return strings.Join(keys, ", ")
}

func join(parent, field string) string {
	if parent == "" {
		return field
	}
	return parent + "." + field
}
