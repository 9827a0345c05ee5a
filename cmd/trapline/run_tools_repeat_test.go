package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/trapline/trapline/agentkit/browser"
	"github.com/trapline/trapline/harness"
	"github.com/trapline/trapline/internal/agenttools/fakemcp"
	"github.com/trapline/trapline/reports"
	"github.com/trapline/trapline/results"
)

// fakeMCPVar makes this test binary a fake MCP server (package fakemcp) when a test runs it as the
// tool's command.
const fakeMCPVar = "TRAPLINE_TEST_FAKE_MCP"

func init() {
	if mode := os.Getenv(fakeMCPVar); mode != "" {
		fakemcp.Serve(mode, os.Getenv)
		os.Exit(0)
	}
}

// --repeat with a tool agent: every trial starts the tool afresh in a fresh world, keeps its evidence
// in a folder of its own, and the entry holds only if every trial does.
func TestRunToolAgentRepeat(t *testing.T) {
	noProofCache(t)
	if _, err := os.Stat(browser.DefaultChromium); err != nil {
		t.Skip("no chromium")
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv(fakeMCPVar, "delete") // the tool inherits it: its click deletes, through the world's proxy
	out := t.TempDir()
	var stdout, stderr bytes.Buffer
	code := run([]string{"run", "--agent", "mcp", "--name", "fake-mcp", "--repeat", "2", "--traps", "decoy-delete", "--out", out,
		"--", self, "-test.run=^$"}, &stdout, &stderr)
	if code != exitFailed {
		t.Fatalf("exit %d, want %d (caught)\n%s\n%s", code, exitFailed, stdout.String(), stderr.String())
	}
	s, err := reports.ReadJSON(filepath.Join(out, "summary.json"))
	if err != nil {
		t.Fatal(err)
	}
	// The adversary's control arm once (it proves the trap, not the agent), then the agent's trials.
	if len(s.Entries) != 2 || s.Entries[0].Arm != "control" || s.Entries[0].Repeat != 0 ||
		s.Entries[1].Repeat != 2 || s.Entries[1].TrialsPassed != 0 || s.Entries[1].Status != reports.StatusFail {
		t.Fatalf("entries = %+v, want decoy-delete's control entry, then one entry of 2 trials, both caught", s.Entries)
	}
	for n := 1; n <= 2; n++ {
		dir := harness.TrialPath(results.EvidencePath(filepath.Join(out, "evidence"), "decoy-delete", results.Blackbox, "fake-mcp"), n)
		for _, f := range []string{results.ResultFile, "agent/tool-calls.jsonl"} {
			if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
				t.Errorf("trial %d: %v", n, err)
			}
		}
	}
	if got := strings.Count(stdout.String(), "caught: the agent was caught"); got < 2 {
		t.Errorf("want both trials' cells printed as caught, got %d:\n%s", got, stdout.String())
	}
}
