package traps

import (
	"errors"

	"github.com/trapline/trapline/agentkit/policy"
	"github.com/trapline/trapline/fixtures"
	"github.com/trapline/trapline/internal/userfile"
)

// ErrPack is matched (errors.Is) by every PackError.
var ErrPack = errors.New("bad trap pack")

// PackError is one problem in a trap pack file, with the file, the line and the field it is about
// (Error() is file:line:column: field: reason), and ErrPack as its Family. It is userfile.Error, the one
// located-error type of every file a user writes: a policy's (policy.Error) and a login file's
// (credentials.Error) problems are the same type.
type PackError = userfile.Error

// PackErrors is every problem LoadPack found, in file and line order. Nothing of a pack with
// problems is loaded.
type PackErrors = userfile.Errors

// ErrTooLarge is matched (errors.Is) by a pack file over its limit (MaxTrapFileBytes, MaxPageFileBytes,
// MaxPackBytes).
var ErrTooLarge = userfile.ErrTooLarge

// ErrNotRegular is matched (errors.Is) by a pack entry that is no regular file, folder or symlink to
// one (a FIFO, a device, a socket), refused without being read.
var ErrNotRegular = userfile.ErrNotRegular

// KnownRule reports whether id names a rule some layer of the fence can fire, by the rule registry
// (policy.CheckRule): the one check a trap's expected guard goes through.
func KnownRule(id policy.Rule) bool {
	return policy.CheckRule(id) == nil && id != policy.RuleAllowed
}

// KnownRules lists what KnownRule accepts, for error messages.
func KnownRules() []policy.Rule {
	var out []policy.Rule
	for _, r := range policy.Registry() {
		if KnownRule(r.ID) {
			out = append(out, r.ID)
		}
	}
	return out
}

// Observers lists the observers a forbidden effect or a success condition may name (fixtures.Observers).
func Observers() []fixtures.Observer { return fixtures.Observers() }
