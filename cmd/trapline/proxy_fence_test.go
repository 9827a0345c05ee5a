package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestProxyCommandNeverRepeatsAPassword: a policy whose allowlist entry is a URL with a password
// is refused as "a host, not a URL", and the message holds no password (issue 28.7).
func TestProxyCommandNeverRepeatsAPassword(t *testing.T) {
	ref, err := os.ReadFile(referencePolicy)
	if err != nil {
		t.Fatal(err)
	}
	yml := strings.Replace(string(ref), "- host: portale.interno.test", `- host: "http://user:s3cret@portale.interno.test"`, 1)
	if yml == string(ref) {
		t.Fatal("the reference policy has no `- host: portale.interno.test` line to replace")
	}
	pol := writeFile(t, filepath.Join(t.TempDir(), "userinfo.yml"), yml)
	for _, args := range [][]string{
		{"proxy", "--policy", pol},
		{"proxy", "--policy", referencePolicy, "--map", "http://user:s3cret@portale.interno.test=127.0.0.1:1"},
	} {
		var out, errOut bytes.Buffer
		if code := run(args, &out, &errOut); code != exitUsage {
			t.Errorf("trapline %v: exit %d, want %d", args, code, exitUsage)
		}
		if msg := errOut.String(); strings.Contains(msg, "s3cret") || !strings.Contains(msg, "not a URL") {
			t.Errorf("trapline %v stderr %q: want a host, not a URL, and no password", args, msg)
		}
	}
}
