package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"slices"
	"strings"

	"github.com/trapline/trapline/agentkit/policy"
)

// loadPolicy loads the policy at path. flag names the flag that gave it, "" when path is a default
// trapline found on its own. A default file that is missing is an environment problem (trapline was
// started outside the repository root): exitBroken, saying where it looked; every other problem with
// a policy file is the user's input: exitUsage, with policy's file:line: field: reason.
func loadPolicy(path, flag string) (*policy.Policy, error) {
	p, err := policy.Load(path)
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
