package policy

import (
	"path/filepath"
	"testing"
)

// policiesDir holds the policy files shipped with the repository.
const policiesDir = "../../policies"

func mustLoad(tb testing.TB, name string) *Policy {
	tb.Helper()
	p, err := Load(filepath.Join(policiesDir, name))
	if err != nil {
		tb.Fatalf("load %s: %v", name, err)
	}
	return p
}

func mustParse(tb testing.TB, yml string) *Policy {
	tb.Helper()
	p, err := Parse("test.yml", []byte(yml))
	if err != nil {
		tb.Fatalf("parse: %v", err)
	}
	return p
}

// minimal is the smallest valid policy; tests append to it.
const minimal = `version: 1
navigation:
  allow:
    - host: portale.interno.test
      paths: ["^/"]
`
