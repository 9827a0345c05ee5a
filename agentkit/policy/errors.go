package policy

import (
	"errors"

	"github.com/trapline/trapline/internal/userfile"
)

// Code is agentkit's one error-code type: it classifies a policy validation error here (and a trap
// pack's or a login file's: it is userfile.Code, the type of every located file error), a ref lookup
// or parse error in observe (observe.Code is this type) and a resolution or dispatch failure in act
// (act.Code is this type too). A Code is itself an error and every coded error unwraps to its Code, so
// errors.Is(err, CodeInvalidRegex) or errors.Is(err, observe.ErrStaleRef) works on anything those
// packages return.
type Code = userfile.Code

// Validation error codes. The first ones are every user file's (a trap pack's and a login file's
// problems carry them too).
const (
	CodeSyntax       = userfile.CodeSyntax       // the file is not valid YAML
	CodeUnknownKey   = userfile.CodeUnknownKey   // a key the schema does not know
	CodeDuplicateKey = userfile.CodeDuplicateKey // a key given twice in one mapping
	CodeWrongType    = userfile.CodeWrongType    // e.g. a string where a list is expected
	CodeMissing      = userfile.CodeMissing      // a required field is absent
	CodeEmpty        = userfile.CodeEmpty        // a list or string that must not be empty
	CodeInvalidValue = userfile.CodeInvalidValue // e.g. a budget of zero, a malformed method
	// CodeTooLarge is the file over MaxFileBytes, a list over MaxListItems, a regex over MaxPatternInsts.
	CodeTooLarge          = userfile.CodeTooLarge
	CodeInvalidRegex Code = "invalid regex"       // a pattern that does not compile
	CodeInvalidHost  Code = "invalid host"        // a host name that does not normalise
	CodeUnknownValue Code = "unknown value"       // an enum value outside its set
	CodeVersion      Code = "unsupported version" // version not 1 (an omitted version means 1)
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

// Error is one problem found in a policy file, located by file, line and field path (Field such as
// navigation.allow[0].paths[1]) and classified by Code; Error() is file:line:column: field: reason. It is
// userfile.Error, the one located-error type of every file a user writes: a trap pack's
// (traps.PackError) and a login file's (credentials.Error) are the same type.
type Error = userfile.Error

// Errors is every problem found in one policy file, in document order. Parse and Load return it
// (never an empty one) when the policy is invalid.
type Errors = userfile.Errors
