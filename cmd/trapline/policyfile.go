package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"slices"
	"strings"

	"github.com/trapline/trapline/agentkit/policy"
	"github.com/trapline/trapline/policies"
)

// loadPolicy loads the policy path names: an embedded policy by name (reference, permissive; see
// policies.Resolve) or a file. flag names the flag that gave it, "" when path is a default trapline
// chose on its own. A default file that is missing is an environment problem: exitBroken, saying where
// it looked; every other problem with a policy is the user's input: exitUsage, with policy's
// file:line: field: reason.
func loadPolicy(path, flag string) (*policy.Policy, error) {
	p, err := policies.Resolve(path)
	if err == nil {
		return p, nil
	}
	if flag == "" && errors.Is(err, fs.ErrNotExist) {
		wd, _ := os.Getwd()
		return nil, withCode(exitBroken, fmt.Errorf("the default policy %s is not in the working directory %s: run trapline from the repository root: %w", path, wd, err))
	}
	if flag != "" {
		return nil, withCode(exitUsage, fmt.Errorf("%s: %w", flag, err))
	}
	return nil, withCode(exitUsage, err)
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
