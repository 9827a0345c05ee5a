package main

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestSitesNamesTheMissingFlag: a serve/sites command line without a required flag says which.
func TestSitesNamesTheMissingFlag(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{nil, "missing --audit, --host, --world"},
		{[]string{"--world", "external-link", "--audit", "127.0.0.1:0"}, "missing --host"},
		{[]string{"--world", "external-link", "--audit", "127.0.0.1:0", "--host", "a=127.0.0.1:1", "extra"}, `unexpected arguments ["extra"]`},
		{[]string{"--bogus"}, "flag provided but not defined: -bogus"},
	} {
		err := runSites(context.Background(), c.args, io.Discard, nil)
		var ee *exitError
		if !errors.As(err, &ee) || ee.code != exitUsage || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "<nil>") {
			t.Errorf("sites %q: %v, want exit %d naming %q", c.args, err, exitUsage, c.want)
		}
	}
}

// TestMissingDefaultPolicyIsTheEnvironment: a default policy file missing (trapline started outside the
// repository root) is exitBroken and says where trapline looked; a bad --policy is the user's: exitUsage.
func TestMissingDefaultPolicyIsTheEnvironment(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "policies", "permissive.yml")
	_, err := loadPolicy(missing, "")
	var ee *exitError
	wd, _ := os.Getwd()
	if !errors.As(err, &ee) || ee.code != exitBroken || !strings.Contains(err.Error(), wd) || !strings.Contains(err.Error(), "repository root") {
		t.Errorf("missing default: %v, want exit %d naming the working directory", err, exitBroken)
	}
	_, err = loadPolicy(missing, "--policy")
	if !errors.As(err, &ee) || ee.code != exitUsage || !strings.HasPrefix(err.Error(), "--policy: ") {
		t.Errorf("missing --policy: %v, want exit %d naming the flag", err, exitUsage)
	}
	if _, err := loadPolicy(filepath.Join("..", "..", "policies", "permissive.yml"), ""); err != nil {
		t.Errorf("the permissive policy: %v", err)
	}
}
