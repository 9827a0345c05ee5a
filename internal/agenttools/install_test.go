package agenttools

import (
	"io"
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

// InstallAll runs the folders' installs side by side, prints each folder's line in the folders' order
// whatever order they end in, and fails naming every folder whose install failed, the others installed.
// A fake npm on PATH: the first folder's install ends last, the second's fails.
func TestInstallAllKeepsTheFoldersOrderAndEveryError(t *testing.T) {
	bin := t.TempDir()
	npm := "#!/bin/sh\n" +
		"[ -f slow ] && sleep 0.3\n" +
		"[ -f broken ] && { echo 'npm error code E404' >&2; exit 1; }\n" +
		"mkdir -p node_modules\n"
	if err := os.WriteFile(filepath.Join(bin, "npm"), []byte(npm), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	root := t.TempDir()
	var dirs []string
	for _, name := range []string{"slow", "broken", "quick"} {
		dir := filepath.Join(root, name)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		for _, f := range []string{"package-lock.json", name} {
			if err := os.WriteFile(filepath.Join(dir, f), []byte("{}\n"), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		dirs = append(dirs, dir)
	}
	var out strings.Builder
	err := InstallAll(dirs, &out)
	if err == nil || !strings.Contains(err.Error(), "npm ci in "+dirs[1]) || !strings.Contains(err.Error(), "E404") {
		t.Fatalf("the broken folder's install: got %v", err)
	}
	want := "agent tools installed (" + dirs[0] + ": npm ci)\nagent tools installed (" + dirs[2] + ": npm ci)\n"
	if out.String() != want {
		t.Fatalf("output:\n%s\nwant:\n%s", out.String(), want)
	}
	for _, dir := range []string{dirs[0], dirs[2]} {
		if _, err := os.Stat(filepath.Join(dir, "node_modules", installStamp)); err != nil {
			t.Fatalf("%s not stamped as installed: %v", dir, err)
		}
	}
	if _, err := os.Stat(filepath.Join(dirs[1], "node_modules", installStamp)); err == nil {
		t.Fatalf("the broken folder is stamped as installed")
	}
	out.Reset()
	if err := InstallAll([]string{dirs[0], dirs[2]}, &out); err != nil || strings.Count(out.String(), "from its lockfile") != 2 {
		t.Fatalf("a second run over installed folders: %v\n%s", err, out.String())
	}
}

// The browser-use example's canvas addon is built after npm ci, from source (no prebuilt binary from
// outside the registry); a failed build fails the install naming what the system lacks, and the
// folder is not stamped as installed. Other folders run no install script.
func TestInstallBuildsOnlyTheListedNativeAddons(t *testing.T) {
	bin := t.TempDir()
	npm := "#!/bin/sh\n" +
		"echo \"$*\" >> npm-calls\n" +
		"[ \"$1\" = rebuild ] && [ -f broken ] && { echo 'Package cairo was not found' >&2; exit 1; }\n" +
		"mkdir -p node_modules\n"
	if err := os.WriteFile(filepath.Join(bin, "npm"), []byte(npm), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	root := t.TempDir()
	bu, other := filepath.Join(root, "examples", "browser-use-agent"), filepath.Join(root, "examples", "magnitude-agent")
	for _, dir := range []string{bu, other} {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "package-lock.json"), []byte("{}\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := InstallAll([]string{bu, other}, io.Discard); err != nil {
		t.Fatal(err)
	}
	calls := func(dir string) string { b, _ := os.ReadFile(filepath.Join(dir, "npm-calls")); return string(b) }
	if c := calls(bu); !strings.Contains(c, "rebuild --no-audit --no-fund --loglevel=error --build-from-source") || !strings.Contains(c, " canvas\n") {
		t.Errorf("browser-use's npm calls:\n%s", c)
	}
	if c := calls(other); strings.Contains(c, "rebuild") {
		t.Errorf("another folder ran an install script:\n%s", c)
	}
	if err := os.WriteFile(filepath.Join(bu, "broken"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	_ = os.Remove(filepath.Join(bu, "node_modules", installStamp))
	err := Install(bu, io.Discard)
	if err == nil || !strings.Contains(err.Error(), "libcairo2-dev") || !strings.Contains(err.Error(), "Package cairo was not found") {
		t.Fatalf("a failed build: got %v", err)
	}
	if _, err := os.Stat(filepath.Join(bu, "node_modules", installStamp)); err == nil {
		t.Error("a folder whose build failed is stamped as installed")
	}
}
