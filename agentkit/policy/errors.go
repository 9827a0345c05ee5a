package policy

import (
	"errors"
	"fmt"
	"strings"

	"github.com/trapline/trapline/internal/userfile"
)

// Code is agentkit's one error-code type: it classifies a policy validation error here, a ref lookup
// or parse error in observe (observe.Code is this type) and a resolution or dispatch failure in act
// (act.Code is this type too). A Code is itself an error and every coded error unwraps to its Code, so
// errors.Is(err, CodeInvalidRegex) or errors.Is(err, observe.ErrStaleRef) works on anything those
// packages return.
type Code string

// Error returns the code's text.
func (c Code) Error() string { return string(c) }

// Validation error codes.
const (
	CodeSyntax       Code = "yaml syntax error"   // the file is not valid YAML
	CodeUnknownKey   Code = "unknown key"         // a key the schema does not know
	CodeDuplicateKey Code = "duplicate key"       // a key given twice in one mapping
	CodeWrongType    Code = "wrong type"          // e.g. a string where a list is expected
	CodeMissing      Code = "missing field"       // a required field is absent
	CodeEmpty        Code = "empty"               // a list or string that must not be empty
	CodeInvalidRegex Code = "invalid regex"       // a pattern that does not compile
	CodeInvalidHost  Code = "invalid host"        // a host name that does not normalise
	CodeInvalidValue Code = "invalid value"       // e.g. a budget of zero, a malformed method
	CodeUnknownValue Code = "unknown value"       // an enum value outside its set
	CodeVersion      Code = "unsupported version" // version not 1 (an omitted version means 1)
	CodeTooLarge     Code = "too large"           // the file over MaxFileBytes, a list over MaxListItems
)

// ErrTooLarge is matched (errors.Is) by a policy file over MaxFileBytes, as by every file trapline
// reads over its limit (traps.ErrTooLarge is the same error).
var ErrTooLarge = userfile.ErrTooLarge

// ErrInvalidPath is wrapped by NormalizePath errors.
var ErrInvalidPath = errors.New("invalid path")

// ErrInvalidURL is wrapped by ParseURL and ResolveURL errors for a URL the browser's parser rejects.
var ErrInvalidURL = errors.New("invalid URL")

// ErrInvalidHost is wrapped by NormalizeHost errors.
var ErrInvalidHost = errors.New("invalid host")

// Error is one problem found in a policy file, located by file, line and field path.
type Error struct {
	File   string // the name given to Parse (the path given to Load)
	Line   int    // 1-based; 0 when unknown
	Field  string // field path such as navigation.allow[0].paths[1]; "" for the whole document
	Code   Code
	Reason string // a sentence naming the offending value
	// Err is the cause when there is one to match besides Code (a *userfile.TooLargeError); nil otherwise.
	Err error
}

// Error formats the problem as file:line: field: reason.
func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString(e.File)
	if e.Line > 0 {
		fmt.Fprintf(&b, ":%d", e.Line)
	}
	b.WriteString(": ")
	if e.Field != "" {
		b.WriteString(e.Field)
		b.WriteString(": ")
	}
	b.WriteString(e.Reason)
	return b.String()
}

// Unwrap returns the error's Code, and its cause Err when there is one.
func (e *Error) Unwrap() []error {
	if e.Err != nil {
		return []error{e.Code, e.Err}
	}
	return []error{e.Code}
}

// Errors is every problem found in one policy file, in document order. Parse and Load return it
// (never an empty one) when the policy is invalid.
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
