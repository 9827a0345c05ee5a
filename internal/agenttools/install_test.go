package agenttools

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A folder whose lockfile pins no agent-browser (an agent-framework example) needs no binary; a folder
// that has the package but not this platform's binary is refused (make bench and .ci/run broke on the
// first case).
func TestMakeExecutableOnlyWhereAgentBrowserIsPinned(t *testing.T) {
	framework := t.TempDir()
	if err := os.MkdirAll(filepath.Join(framework, "node_modules", "@openai", "agents"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := makeExecutable(framework); err != nil {
		t.Fatalf("a folder without agent-browser: %v", err)
	}
	tools := t.TempDir()
	if err := os.MkdirAll(filepath.Join(tools, "node_modules", "agent-browser", "bin"), 0o755); err != nil {
		t.Fatal(err)
	}
	err := makeExecutable(tools)
	if err == nil || !strings.Contains(err.Error(), "no binary for this platform") {
		t.Fatalf("agent-browser without this platform's binary: got %v", err)
	}
	bin := AgentBrowserBinary(tools)
	if err := os.WriteFile(bin, []byte("#!/bin/sh\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := makeExecutable(tools); err != nil {
		t.Fatal(err)
	}
	if fi, _ := os.Stat(bin); fi.Mode()&0o111 == 0 {
		t.Fatalf("the binary is not executable: %v", fi.Mode())
	}
}
