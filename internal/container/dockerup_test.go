package container

import (
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestDockerUpClosesCallerFDs: scripts/docker-up.sh starts dockerd without the caller's descriptors
// above 2. The caller here holds a pipe's write end as fd 3 (a CI step waiting for EOF on its
// output); a stand-in dockerd that lives on must not keep it open. Before the fix the daemon inherited
// fd 3 and the read below never saw EOF.
func TestDockerUpClosesCallerFDs(t *testing.T) {
	for _, tool := range []string{"bash", "setsid", "timeout"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("needs %s", tool)
		}
	}
	dir := t.TempDir()
	bin := filepath.Join(dir, "bin")
	if err := os.Mkdir(bin, 0o755); err != nil {
		t.Fatal(err)
	}
	ready, pidFile := filepath.Join(dir, "ready"), filepath.Join(dir, "dockerd.pid")
	write := func(name, body string) {
		if err := os.WriteFile(filepath.Join(bin, name), []byte(body), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	write("docker", "#!/bin/sh\n[ -f \"$READY\" ]\n")
	write("dockerd", "#!/bin/sh\necho $$ > \"$PIDFILE\"\ntouch \"$READY\"\nexec sleep 60\n")
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	cmd := exec.Command("bash", filepath.Join("..", "..", "scripts", "docker-up.sh"))
	cmd.Env = []string{"PATH=" + bin + ":/usr/local/bin:/usr/bin:/bin", "READY=" + ready, "PIDFILE=" + pidFile, "DOCKERD_LOG=" + filepath.Join(dir, "dockerd.log"), "HOME=" + dir}
	cmd.ExtraFiles = []*os.File{w}
	out, err := cmd.CombinedOutput()
	w.Close()
	t.Cleanup(func() {
		if b, err := os.ReadFile(pidFile); err == nil {
			if pid, err := strconv.Atoi(strings.TrimSpace(string(b))); err == nil {
				syscall.Kill(pid, syscall.SIGKILL)
			}
		}
	})
	if err != nil || !strings.Contains(string(out), "engine ready") {
		t.Fatalf("docker-up.sh: %v\n%s", err, out)
	}
	if err := r.SetReadDeadline(time.Now().Add(5 * time.Second)); err != nil {
		t.Fatalf("a deadline on the pipe: %v", err)
	}
	if _, err := io.ReadAll(r); err != nil {
		if errors.Is(err, os.ErrDeadlineExceeded) {
			t.Fatal("the daemon still holds the caller's fd 3 (no EOF on the pipe)")
		}
		t.Fatal(err)
	}
}
