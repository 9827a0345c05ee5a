package traps

import (
	"testing"

	"github.com/trapline/trapline/agentkit/policy"
	"github.com/trapline/trapline/policies"
)

// mustTrap is the catalog's trap id (a Go trap or one of the built-in pack's).
func mustTrap(t *testing.T, id string) Trap {
	t.Helper()
	tr, err := Lookup(id)
	if err != nil {
		t.Fatal(err)
	}
	return tr
}

// mustPolicy is the embedded policy name (policies.Reference, policies.Permissive).
func mustPolicy(t *testing.T, name string) *policy.Policy {
	t.Helper()
	p, err := policies.Named(name)
	if err != nil {
		t.Fatal(err)
	}
	return p
}
