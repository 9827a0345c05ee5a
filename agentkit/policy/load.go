package policy

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/trapline/trapline/internal/userfile"
)

// The limits of a policy file (docs/request-rules.md, "Limits"). The reference policy is 3.4 KiB with
// 30 items in its longest list; the limits leave room for a hand-written policy many times its size
// while keeping what parsing costs (the YAML tree, a compiled regex per pattern) to tens of MB.
const (
	// MaxFileBytes bounds a policy file; Load checks it on the opened file, before reading it, and
	// Parse before parsing.
	MaxFileBytes = 1 << 20
	// MaxListItems bounds the items of any one list (deny_paths, allow, deny_words.<category>, ...).
	MaxListItems = 1000
	// MaxTotalItems bounds the items of all the lists together, every use of a YAML alias counted
	// again: an alias repeated in a list cannot multiply the work.
	MaxTotalItems = 5000
	// MaxPatternInsts bounds one regular expression's compiled program (a path pattern of the
	// reference policy compiles to under 60 instructions; "a{1000}" to 1000): a short pattern cannot
	// stand for megabytes.
	MaxPatternInsts = 5000
	// MaxTotalPatternInsts bounds the compiled programs of all the policy's patterns together.
	MaxTotalPatternInsts = 250000
)

// Load reads and parses the policy file at path. I/O errors are wrapped as "load policy <path>: ...";
// a file over MaxFileBytes is refused before it is read (an Error with CodeTooLarge, matching
// ErrTooLarge); validation problems come back as Errors, each naming path, line and field.
func Load(path string) (*Policy, error) {
	data, err := userfile.ReadFile("policy", path, MaxFileBytes)
	if tl := (*userfile.TooLargeError)(nil); errors.As(err, &tl) {
		return nil, Errors{tooLarge(path, tl)}
	}
	if err != nil {
		return nil, fmt.Errorf("load policy %s: %w", path, err)
	}
	return Parse(path, data)
}

func tooLarge(name string, tl *userfile.TooLargeError) *Error {
	return &Error{File: name, Code: CodeTooLarge, Reason: tl.Sizes(), Err: tl}
}

// Parse validates a policy document; name is used in error messages and as Policy.Source.
// It returns every problem it finds as Errors (usable with errors.As, and errors.Is with a Code)
// and a nil policy whenever there is at least one: nothing is half-applied. Omitted fields get
// safe defaults: version 1, mode act, on_violation abort_and_log, actions.unnamed deny, no deny words, no
// writes, the DefaultBudget values, and every capability setting at its restrictive value.
func Parse(name string, data []byte) (*Policy, error) {
	if len(data) > MaxFileBytes {
		return nil, Errors{tooLarge(name, &userfile.TooLargeError{Kind: "policy", File: name, Size: int64(len(data)), Limit: MaxFileBytes})}
	}
	d := newDecoder(name)
	root := d.document(data)
	if len(d.Errs) > 0 {
		return nil, d.Errs
	}
	p := defaultPolicy(name)
	d.policy(root, p)
	if len(d.Errs) > 0 {
		return nil, d.Errs
	}
	if isSeedFormat(root) {
		p.seedWrites()
	}
	p.Actions.compile()
	return p, nil
}

// DefaultBudget returns the budget used for values a policy omits.
func DefaultBudget() Budget {
	var b Budget
	for _, f := range flatFields {
		switch {
		case f.count != nil:
			*f.count(&b) = f.def
		case f.seconds != nil:
			*f.seconds(&b) = time.Duration(f.def) * time.Second
		}
	}
	return b
}

// defaultPolicy is the policy Parse starts from: every capability setting at its restrictive value
// (the first its row allows).
func defaultPolicy(source string) *Policy {
	p := &Policy{
		Source:     source,
		Version:    1,
		Mode:       ModeAct,
		Navigation: Navigation{OnViolation: AbortAndLog},
		Actions:    Actions{Unnamed: Deny},
		Budget:     DefaultBudget(),
	}
	for _, f := range flatFields {
		if f.setting != nil {
			*f.setting(p) = f.Allowed[0]
		}
	}
	return p
}

// document parses data into its single YAML document (userfile.Document, the one strict reader of
// the files users write), reporting syntax errors with their line.
func (d *decoder) document(data []byte) *yaml.Node {
	root, err := userfile.Document(d.File, data)
	if err != nil {
		switch err.Code {
		case CodeEmpty:
			err.Reason = "the policy is empty"
		case CodeSyntax:
			err.Reason = strings.Replace(err.Reason, "the file is one document", "a policy is one document", 1)
		}
		d.Errs = append(d.Errs, err)
		return nil
	}
	return root
}
