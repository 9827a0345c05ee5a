package specs

import (
	"fmt"
	"strings"

	gtypes "github.com/onsi/gomega/types"

	"github.com/trapline/trapline/agentkit/evidence"
)

// ContainNoSecret succeeds when no file of an evidence folder, the entries of its zip archives
// (trace.zip) included unless skipZip, holds secret in any form: plain, URL-, JSON- or HTML-escaped,
// base64 or base64url at any alignment, UTF-16 (evidence.Scan). A folder that cannot be read is an
// error, not a pass. The failure names each file, entry and form, never the secret.
func ContainNoSecret(secret string, skipZip bool) gtypes.GomegaMatcher {
	return &noSecret{secret: secret, skipZip: skipZip}
}

type noSecret struct {
	secret  string
	skipZip bool
	leaks   []string
}

func (m *noSecret) Match(actual any) (bool, error) {
	dir, ok := actual.(string)
	if !ok {
		return false, fmt.Errorf("ContainNoSecret: want an evidence folder's path, got %T", actual)
	}
	if m.secret == "" {
		return false, fmt.Errorf("ContainNoSecret: empty secret")
	}
	found, err := evidence.Scan(dir, m.secret)
	if err != nil {
		return false, err
	}
	m.leaks = nil
	for _, l := range found {
		if !m.skipZip || !strings.HasSuffix(l.File, ".zip") {
			m.leaks = append(m.leaks, l.String())
		}
	}
	return len(m.leaks) == 0, nil
}

func (m *noSecret) FailureMessage(actual any) string {
	return fmt.Sprintf("Expected no artifact in %v to hold the secret, but it is in:\n  %s", actual, strings.Join(m.leaks, "\n  "))
}

func (m *noSecret) NegatedFailureMessage(actual any) string {
	return fmt.Sprintf("Expected an artifact in %v to hold the secret, but none does", actual)
}
