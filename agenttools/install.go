package agenttools

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
)

// ToolsDir is the folder, relative to the repository root, whose package.json and package-lock.json
// pin the agent tools trapline drives (@playwright/mcp, chrome-devtools-mcp, agent-browser).
const ToolsDir = "tools"

// installStamp records, inside node_modules, the lockfile hash the folder was installed from.
const installStamp = ".trapline-lock-sha256"

// Install installs the pinned agent tools in dir with `npm ci` (exactly the lockfile's versions, from
// the npm registry, no global install), unless dir/node_modules was already installed from the same
// lockfile. Install scripts are not run: agent-browser ships its per-platform binaries in the package
// and its postinstall only picks one, which the adapters do by path. It says what it did on out.
func Install(dir string, out io.Writer) error {
	lock, err := os.ReadFile(filepath.Join(dir, "package-lock.json"))
	if err != nil {
		return fmt.Errorf("agent tools: read the lockfile: %w", err)
	}
	sum := sha256.Sum256(lock)
	want := []byte(hex.EncodeToString(sum[:]) + "\n")
	stamp := filepath.Join(dir, "node_modules", installStamp)
	if have, err := os.ReadFile(stamp); err == nil && bytes.Equal(have, want) {
		fmt.Fprintf(out, "agent tools ready (%s, from its lockfile)\n", dir)
		return nil
	}
	npm, err := exec.LookPath("npm")
	if err != nil {
		return fmt.Errorf("agent tools: npm is needed to install %s: %w", dir, err)
	}
	cmd := exec.Command(npm, "ci", "--ignore-scripts", "--no-audit", "--no-fund", "--loglevel=error")
	cmd.Dir = dir
	var stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = io.Discard, &stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("agent tools: npm ci in %s: %w: %s", dir, err, bytes.TrimSpace(stderr.Bytes()))
	}
	if err := os.WriteFile(stamp, want, 0o644); err != nil {
		return fmt.Errorf("agent tools: %w", err)
	}
	fmt.Fprintf(out, "agent tools installed (%s: npm ci)\n", dir)
	return nil
}
