package main

import (
	"os"
	"path/filepath"
	"testing"
)

// A tool command's version is the npm package it runs (name and version from the nearest
// package.json, as tools/'s lockfile installed it), not a hash of its script.
func TestToolVersionIsItsNPMPackage(t *testing.T) {
	root := t.TempDir()
	pkg := filepath.Join(root, "node_modules", "@playwright", "mcp")
	if err := os.MkdirAll(filepath.Join(pkg, "lib"), 0o755); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(pkg, "package.json"), `{"name":"@playwright/mcp","version":"0.0.83"}`)
	script := writeFile(t, filepath.Join(pkg, "lib", "cli.js"), "// cli\n")
	a, err := agentIdentity(runConfig{agent: agentMCP, name: "mcp", command: []string{"node", script, "--headless"}}, "dev")
	if err != nil {
		t.Fatal(err)
	}
	if a.Tool != "mcp @playwright/mcp" || a.ToolVersion != "0.0.83" {
		t.Errorf("tool %q version %q, want mcp @playwright/mcp 0.0.83", a.Tool, a.ToolVersion)
	}
	if _, _, ok := npmPackageOf([]string{"./safe.sh"}); ok {
		t.Error("a command outside any npm package was given a package")
	}
}
