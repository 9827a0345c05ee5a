package results

import (
	"encoding/json"
	"fmt"
	"os"

	"github.com/trapline/trapline/agentkit/evidence"
)

// Version is the version of result.json (Result.V). A result crosses process and container
// boundaries (a matrix re-classified later, a report of an earlier run), so a reader checks it and
// refuses another version instead of guessing at its fields.
const Version = 1

// WriteFile writes r to path as result.json, stamped with Version.
func WriteFile(path string, r *Result) error {
	r.V = Version
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return fmt.Errorf("write result %s: %w", path, err)
	}
	if err := os.WriteFile(path, append(b, '\n'), 0o600); err != nil { // it holds page content: its owner's only
		return fmt.Errorf("write result %s: %w", path, err)
	}
	return nil
}

// ReadFile reads a result.json. A result of another version (or none) is an error wrapping
// evidence.ErrVersion that names the file and both versions.
func ReadFile(path string) (*Result, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read result: %w", err)
	}
	return Decode(b, path)
}

// Decode decodes a result.json's bytes; name is the file it came from, for errors.
func Decode(b []byte, name string) (*Result, error) {
	if err := evidence.CheckVersion(b, Version); err != nil {
		return nil, fmt.Errorf("read result %s: %w", name, err)
	}
	var r Result
	if err := json.Unmarshal(b, &r); err != nil {
		return nil, fmt.Errorf("read result %s: %w", name, err)
	}
	return &r, nil
}
