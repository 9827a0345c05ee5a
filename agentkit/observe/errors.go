package observe

import (
	"strings"

	"github.com/trapline/trapline/agentkit/policy"
)

// Code classifies an observe error. It is policy.Code, the one error-code type of agentkit: a Code is
// itself an error, and *Error unwraps to its Code, so errors.Is(err, ErrStaleRef) works on anything
// this package (or act) returns.
type Code = policy.Code

// Error codes. Each is also the sentinel to match with errors.Is.
const (
	// ErrBareRef: a Playwright ref such as "e8" given without its snapshot id.
	ErrBareRef Code = "BARE_REF"
	// ErrStaleRef: a qualified ref from another snapshot than the one asked.
	ErrStaleRef Code = "STALE_REF"
	// ErrUnknownRef: a ref of this snapshot that names no node in it.
	ErrUnknownRef Code = "UNKNOWN_REF"
	// ErrMalformedRef: a string that is not "snapshotid:ref" at all.
	ErrMalformedRef Code = "MALFORMED_REF"
	// ErrAmbiguousTarget: Find matched more than one element.
	ErrAmbiguousTarget Code = "AMBIGUOUS_TARGET"
	// ErrNotFound: Find matched no element.
	ErrNotFound Code = "NOT_FOUND"
	// ErrNotSnapshot: Parse was given text that is not an aria snapshot.
	ErrNotSnapshot Code = "NOT_SNAPSHOT"
	// ErrBadSnapshotID: Parse was given an empty or malformed snapshot id.
	ErrBadSnapshotID Code = "BAD_SNAPSHOT_ID"
)

// Error is one failure of a lookup, a search or a parse. Match it with
// errors.Is(err, ErrStaleRef) and friends, or errors.As to read the fields.
type Error struct {
	Code Code
	Ref  string // the ref (or snapshot id) the caller gave; "" when not about a ref
	Msg  string // a sentence for humans and logs
}

// Error formats the failure as "observe: CODE ref: msg".
func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString("observe: ")
	b.WriteString(string(e.Code))
	if e.Ref != "" {
		b.WriteString(" ")
		b.WriteString(e.Ref)
	}
	if e.Msg != "" {
		b.WriteString(": ")
		b.WriteString(e.Msg)
	}
	return b.String()
}

// Unwrap returns the error's Code, so errors.Is matches the sentinels.
func (e *Error) Unwrap() error { return e.Code }

func newError(c Code, ref, msg string) *Error { return &Error{Code: c, Ref: ref, Msg: msg} }
