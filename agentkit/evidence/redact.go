package evidence

import (
	"sort"
	"strings"
)

// Redacted replaces every secret in evidence.
const Redacted = "[REDACTED]"

// Redactor replaces configured secrets in strings. The zero value redacts nothing.
type Redactor struct {
	secrets []string
}

// NewRedactor returns a Redactor for the given secrets; empty strings are ignored. Longer secrets are
// replaced first, so a secret that contains another is hidden whole.
func NewRedactor(secrets ...string) *Redactor {
	r := &Redactor{}
	for _, s := range secrets {
		if s != "" {
			r.secrets = append(r.secrets, s)
		}
	}
	sort.Slice(r.secrets, func(i, j int) bool { return len(r.secrets[i]) > len(r.secrets[j]) })
	return r
}

// String returns s with every secret replaced by Redacted.
func (r *Redactor) String(s string) string {
	if r == nil {
		return s
	}
	for _, sec := range r.secrets {
		s = strings.ReplaceAll(s, sec, Redacted)
	}
	return s
}

// Bytes is String for byte slices.
func (r *Redactor) Bytes(b []byte) []byte {
	if r == nil || len(r.secrets) == 0 {
		return b
	}
	return []byte(r.String(string(b)))
}
