package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/trapline/trapline/reports"
)

func TestCommands(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.yml")
	if err := os.WriteFile(bad, []byte("version: 1\nnavigation:\n  allow: []\n  bogus: 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	failing := filepath.Join(dir, "summary.json")
	s := reports.Summary{Entries: []reports.Entry{{Trap: "decoy-delete", Arm: "guarded", Verdict: "fail", Why: "forbidden effect"}}}
	s.Finish(s.Generated)
	if err := reports.WriteJSON(failing, s); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		args     []string
		code     int
		contains string
	}{
		{[]string{"traps", "list"}, exitOK, "decoy-delete"},
		{[]string{"policy", "lint", "../../policies/reference.yml"}, exitOK, "portale.interno.test"},
		{[]string{"policy", "lint", bad}, exitUsage, "bad.yml:4"},
		{[]string{"report", failing}, exitVerdict, "FAIL"},
		{[]string{"report", filepath.Join(dir, "missing.json")}, exitUsage, "missing.json"},
		{[]string{"frobnicate"}, exitUsage, "usage"},
		{nil, exitUsage, "usage"},
	}
	for _, c := range cases {
		var out, errOut bytes.Buffer
		code := run(c.args, &out, &errOut)
		if code != c.code {
			t.Errorf("trapline %v exit %d, want %d (stderr %s)", c.args, code, c.code, errOut.String())
		}
		if all := out.String() + errOut.String(); !strings.Contains(all, c.contains) {
			t.Errorf("trapline %v output lacks %q:\n%s", c.args, c.contains, all)
		}
	}
}
