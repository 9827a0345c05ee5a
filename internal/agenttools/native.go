package agenttools

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// nativeBuilds are the only install scripts trapline runs: a folder's packages whose native addon
// must be built for the example to load at all (npm ci runs with --ignore-scripts). browser-use 0.8.0
// imports canvas (node-canvas) at load time, and canvas's addon is built from source against Cairo
// and Pango: never a prebuilt binary downloaded from outside the registry (npm_config_build_from_source),
// and Node.js's headers from the installed Node.js when it has them (node-gyp would download them).
var nativeBuilds = []struct {
	dir   string   // the folder, relative to the repository root, slash-separated
	pkgs  []string // its packages to build
	needs string   // what the build needs from the system, for the error
}{
	{"examples/browser-use-agent", []string{"canvas"},
		"Cairo's, Pango's and the image libraries' headers and a C++ compiler (apt-get install -y build-essential libcairo2-dev libpango1.0-dev libjpeg-dev libgif-dev librsvg2-dev)"},
}

// buildNative builds the native addons nativeBuilds lists for dir with `npm rebuild PKG...`.
func buildNative(npm, dir string) error {
	for _, nb := range nativeBuilds {
		if !strings.HasSuffix(filepath.ToSlash(filepath.Clean(dir)), nb.dir) {
			continue
		}
		// npm hands its command-line settings to the addon's build as npm_config_* variables, so the
		// environment stays the process's own (a library reads none: docs/architecture.md).
		args := []string{"rebuild", "--no-audit", "--no-fund", "--loglevel=error", "--build-from-source"}
		if inc := nodeHeaders(); inc != "" {
			args = append(args, "--nodedir="+inc)
		}
		cmd := exec.Command(npm, append(args, nb.pkgs...)...)
		cmd.Dir = dir
		var stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = io.Discard, &stderr
		if err := cmd.Run(); err != nil {
			return fmt.Errorf("agent tools: build %s's native addon in %s (it needs %s): %w: %s",
				strings.Join(nb.pkgs, ", "), dir, nb.needs, err, lastLines(stderr.String(), 6))
		}
	}
	return nil
}

// nodeHeaders is the installation prefix of the node on PATH when it ships Node.js's headers
// (PREFIX/include/node/node.h), else "".
func nodeHeaders() string {
	node, err := exec.LookPath("node")
	if err != nil {
		return ""
	}
	if real, err := filepath.EvalSymlinks(node); err == nil {
		node = real
	}
	prefix := filepath.Dir(filepath.Dir(node))
	if _, err := os.Stat(filepath.Join(prefix, "include", "node", "node.h")); err != nil {
		return ""
	}
	return prefix
}

// lastLines is the last n non-blank lines of s, joined by " | ": a compiler's error is at the end.
func lastLines(s string, n int) string {
	var lines []string
	for _, l := range strings.Split(s, "\n") {
		if strings.TrimSpace(l) != "" {
			lines = append(lines, strings.TrimSpace(l))
		}
	}
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, " | ")
}
