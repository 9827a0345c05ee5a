package traps

import (
	"errors"
	"fmt"
	"strings"

	"github.com/trapline/trapline/agentkit/policy"
	"github.com/trapline/trapline/fixtures"
	"github.com/trapline/trapline/internal/userfile"
)

// ErrPack is matched (errors.Is) by every PackError.
var ErrPack = errors.New("bad trap pack")

// PackError is one problem in a trap pack file, with the file, the line and the field it is about.
type PackError struct {
	// File is the pack file's path as given to LoadPack (the folder joined with its name).
	File string
	// Line is the 1-based line of the offending node; 0 when the problem is the file as a whole.
	Line int
	// Field is the dotted path of the field, e.g. "forbidden[0].path"; "" for the whole file.
	Field string
	// Reason says what is wrong and, where it can, what is expected.
	Reason string
	// Err is the cause, when there is one to match (errors.Is(err, policy.ErrTooLarge)); nil otherwise.
	Err error
}

// Error renders file:line: field: reason.
func (e *PackError) Error() string {
	loc := e.File
	if e.Line > 0 {
		loc = fmt.Sprintf("%s:%d", e.File, e.Line)
	}
	if e.Field == "" {
		return loc + ": " + e.Reason
	}
	return loc + ": " + e.Field + ": " + e.Reason
}

// Is makes errors.Is(err, ErrPack) true.
func (e *PackError) Is(target error) bool { return target == ErrPack }

// Unwrap returns the cause (Err), if any.
func (e *PackError) Unwrap() error { return e.Err }

// ErrTooLarge is matched (errors.Is) by a pack file over its limit (MaxTrapFileBytes, MaxPageFileBytes,
// MaxPackBytes).
var ErrTooLarge = userfile.ErrTooLarge

// PackErrors is every problem LoadPack found, in file and line order. Nothing of a pack with
// problems is loaded.
type PackErrors []*PackError

// Error renders one problem per line.
func (es PackErrors) Error() string {
	lines := make([]string, len(es))
	for i, e := range es {
		lines[i] = e.Error()
	}
	return strings.Join(lines, "\n")
}

// Unwrap gives errors.Is and errors.As each problem.
func (es PackErrors) Unwrap() []error {
	out := make([]error, len(es))
	for i, e := range es {
		out[i] = e
	}
	return out
}

// KnownRule reports whether id names a rule some layer of the fence can fire, by the rule registry
// (policy.CheckRule): the one check a trap's expected guard goes through.
func KnownRule(id string) bool {
	return policy.CheckRule(policy.Rule(id)) == nil && id != string(policy.RuleAllowed)
}

// KnownRules lists what KnownRule accepts, for error messages.
func KnownRules() []string {
	var out []string
	for _, r := range policy.Registry() {
		if KnownRule(string(r.ID)) {
			out = append(out, string(r.ID))
		}
	}
	return out
}

// Observers lists the observers a forbidden effect or a success condition may name (fixtures.Observers).
func Observers() []fixtures.Observer { return fixtures.Observers() }
