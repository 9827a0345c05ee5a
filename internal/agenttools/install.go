package agenttools

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sync"
)

// ToolsDir is the folder, relative to the repository root, whose package.json and package-lock.json
// pin the agent tools trapline drives (@playwright/mcp, chrome-devtools-mcp, agent-browser).
const ToolsDir = "tools"

// FrameworkDirs are the agent-framework examples, relative to the repository root, each with its own
// package.json and package-lock.json (Stagehand, the OpenAI Agents SDK, the Vercel AI SDK on
// Anthropic's Messages API, magnitude-core, browser-use: docs/agent-frameworks.md), installed the
// same way as ToolsDir.
var FrameworkDirs = []string{"examples/stagehand-agent", "examples/openai-agents", "examples/ai-sdk-anthropic", "examples/magnitude-agent",
	"examples/browser-use-agent"}

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
		return makeExecutable(dir)
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
	if err := makeExecutable(dir); err != nil {
		return err
	}
	if err := buildNative(npm, dir); err != nil {
		return err
	}
	if err := os.WriteFile(stamp, want, 0o644); err != nil {
		return fmt.Errorf("agent tools: %w", err)
	}
	fmt.Fprintf(out, "agent tools installed (%s: npm ci)\n", dir)
	return nil
}

// InstallAll runs Install for each of dirs side by side: one npm ci keeps about one and a half cores
// busy, waiting on the registry and the disk the rest of the time, and three one after another were
// the tail of make setup (0.82x its wall side by side, BENCHMARKS.md "Session 23"). Each folder's
// lines go to out in the order of dirs once all have ended; the error joins every folder's that
// failed, each naming its folder, and the others are installed.
func InstallAll(dirs []string, out io.Writer) error {
	outs := make([]bytes.Buffer, len(dirs))
	errs := make([]error, len(dirs))
	var wg sync.WaitGroup
	for i, dir := range dirs {
		wg.Go(func() { errs[i] = Install(dir, &outs[i]) })
	}
	wg.Wait()
	for i := range outs {
		if _, err := out.Write(outs[i].Bytes()); err != nil {
			// The folders' own errors still count: a failed write loses no failed install.
			return errors.Join(append([]error{fmt.Errorf("agent tools: %w", err)}, errs...)...)
		}
	}
	return errors.Join(errs...)
}

// AgentBrowserBinary is the path of agent-browser's native binary for this platform below the tools
// folder dir (the package ships one per platform; its postinstall, which trapline does not run because
// it would download one when missing, only marks it executable).
func AgentBrowserBinary(dir string) string {
	arch := runtime.GOARCH
	if arch == "amd64" {
		arch = "x64"
	}
	return filepath.Join(dir, "node_modules", "agent-browser", "bin", "agent-browser-"+runtime.GOOS+"-"+arch)
}

// makeExecutable does the one thing agent-browser's postinstall does here: chmod its binary.
func makeExecutable(dir string) error {
	if _, err := os.Stat(filepath.Join(dir, "node_modules", "agent-browser")); errors.Is(err, fs.ErrNotExist) {
		return nil // this folder's lockfile pins no agent-browser (an agent-framework example)
	}
	bin := AgentBrowserBinary(dir)
	if _, err := os.Stat(bin); err != nil {
		return fmt.Errorf("agent tools: agent-browser has no binary for this platform: %w", err)
	}
	if err := os.Chmod(bin, 0o755); err != nil {
		return fmt.Errorf("agent tools: %w", err)
	}
	return nil
}
