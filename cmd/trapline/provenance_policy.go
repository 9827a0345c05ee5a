package main

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io/fs"
	"os"

	"github.com/trapline/trapline/policies"
	"github.com/trapline/trapline/reports"
)

// policySHA256 hashes the policy a run used, given as policies.Resolve takes it: a file's bytes, or,
// for an embedded name with no file of that name in the working folder, the embedded YAML.
func policySHA256(nameOrPath string) (string, error) {
	if _, err := os.Stat(nameOrPath); errors.Is(err, fs.ErrNotExist) {
		if b, err := policies.Bytes(nameOrPath); err == nil {
			sum := sha256.Sum256(b)
			return hex.EncodeToString(sum[:]), nil
		}
	}
	return reports.FileSHA256(nameOrPath)
}
