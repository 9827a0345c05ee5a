package main

import (
	"fmt"
	"slices"
	"strings"

	"github.com/trapline/trapline/agentkit/policy"
	"github.com/trapline/trapline/policies"
)

// loadPolicy loads the policy path names: an embedded policy by name (reference, permissive; see
// policies.Resolve) or a file; flag names the flag that gave it (or would have: the defaults are
// embedded names, so no default can be missing from the working directory). Every problem with a
// policy is the user's input: exitUsage, naming the flag, with policy's file:line:column: field: reason.
func loadPolicy(path, flag string) (*policy.Policy, error) {
	p, err := policies.Resolve(path)
	if err != nil {
		return nil, withCode(exitUsage, fmt.Errorf("%s: %w", flag, err))
	}
	return p, nil
}

// missingFlags names what is wrong with a command line whose flags parsed: arguments left over, or
// the required flags (name → given) that are missing, in sorted order; "" when nothing is.
func missingFlags(rest []string, required map[string]bool) string {
	if len(rest) > 0 {
		return fmt.Sprintf("unexpected arguments %q", rest)
	}
	var missing []string
	for name, given := range required {
		if !given {
			missing = append(missing, name)
		}
	}
	if len(missing) == 0 {
		return ""
	}
	slices.Sort(missing)
	return "missing " + strings.Join(missing, ", ")
}
