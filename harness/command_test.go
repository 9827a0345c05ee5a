package harness

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/trapline/trapline/results"
)

func testEnv(t *testing.T) Env {
	t.Helper()
	dir := t.TempDir()
	return Env{Environ: os.Environ(), Trap: "decoy-delete", StartURL: "http://portale.interno.test/pratiche/4", Task: "salva",
		ProxyURL: "http://127.0.0.1:1", CDPURL: "http://127.0.0.1:9222", ArtifactsDir: dir,
		DownloadsDir: filepath.Join(dir, "dl"), Password: "s3greta!", Deadline: time.Now().Add(time.Minute)}
}

func TestCommandEnvironmentAndOutput(t *testing.T) {
	t.Setenv("HTTPS_PROXY", "http://corporate.example:3128") // must not leak into the agent
	env := testEnv(t)
	c := &Command{AgentName: "sh", Path: "sh", Args: []string{"-c",
		`echo "start=$TRAPLINE_START_URL cdp=$TRAPLINE_CDP_URL proxy=$HTTP_PROXY https=$HTTPS_PROXY no=$NO_PROXY dl=$TRAPLINE_DOWNLOADS"; echo "pw=$TRAPLINE_PASSWORD" >&2; exit 3`}}
	err := c.Run(context.Background(), env)
	var ee interface{ ExitCode() int }
	if !errors.As(err, &ee) || ee.ExitCode() != 3 {
		t.Fatalf("Run = %v, want exit status 3", err)
	}
	out, err := os.ReadFile(filepath.Join(env.ArtifactsDir, results.StdoutFile))
	if err != nil {
		t.Fatal(err)
	}
	want := "start=http://portale.interno.test/pratiche/4 cdp=http://127.0.0.1:9222 proxy=http://127.0.0.1:1 https=http://127.0.0.1:1 no=127.0.0.1:9222,127.0.0.1 dl=" + env.DownloadsDir
	if strings.TrimSpace(string(out)) != want {
		t.Fatalf("stdout = %q, want %q", out, want)
	}
	errOut, err := os.ReadFile(filepath.Join(env.ArtifactsDir, results.StderrFile))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(errOut), env.Password) || !strings.HasPrefix(string(errOut), "pw=") {
		t.Fatalf("stderr = %q: the password must be redacted", errOut)
	}
}

func TestCommandTimeoutKillsTheGroup(t *testing.T) {
	env := testEnv(t)
	pidFile := filepath.Join(env.ArtifactsDir, "child.pid")
	// The child ignores SIGTERM and leaves a grandchild behind: both must die.
	c := &Command{AgentName: "stubborn", Path: "sh", KillGrace: 200 * time.Millisecond, Args: []string{"-c",
		`trap "" TERM; sleep 60 & echo $! > ` + pidFile + `; wait`}}
	ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
	defer cancel()
	start := time.Now()
	err := c.Run(ctx, env)
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Run = %v, want the deadline", err)
	}
	if d := time.Since(start); d > 4*time.Second {
		t.Fatalf("Run took %s after a 500ms deadline", d)
	}
	b, err := os.ReadFile(pidFile)
	if err != nil {
		t.Fatal(err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		t.Fatal(err)
	}
	// The killed grandchild is re-parented; it may linger as a zombie until reaped, never run. Its pid
	// may be reused by then (the machine is busy), so only a running "sleep 60" counts.
	st, errStat := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	cmdline, errCmd := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cmdline")
	if errStat == nil && errCmd == nil && string(cmdline) == "sleep\x0060\x00" {
		if f := strings.Fields(string(st)); len(f) > 2 && f[2] != "Z" {
			t.Fatalf("grandchild %d still running (state %s)", pid, f[2])
		}
	}
}

func TestCommandNotStarted(t *testing.T) {
	c := &Command{AgentName: "ghost", Path: "/no/such/agent"}
	if err := c.Run(context.Background(), testEnv(t)); !errors.Is(err, ErrAgentNotStarted) {
		t.Fatalf("Run = %v, want ErrAgentNotStarted", err)
	}
}

func TestEvidencePath(t *testing.T) {
	if got := results.EvidencePath("/e", "t", results.Guarded, ""); got != "/e/t/guarded" {
		t.Errorf("reference: %s", got)
	}
	if got := results.EvidencePath("/e", "t", results.Guarded, results.ReferenceAgent); got != "/e/t/guarded" {
		t.Errorf("reference by name: %s", got)
	}
	if got := results.EvidencePath("/e", "t", results.Blackbox, "naive"); got != "/e/t/blackbox-naive" {
		t.Errorf("agent: %s", got)
	}
}

// TestCommandInheritsTheGivenEnvironment: the agent inherits Env.Environ (the caller's os.Environ()),
// not the harness process's own, and a nil one is refused before anything starts.
func TestCommandInheritsTheGivenEnvironment(t *testing.T) {
	t.Setenv("TRAPLINE_TEST_MARK", "process") // the process's own: the agent must not see it
	env := testEnv(t)
	env.Environ = []string{"PATH=" + os.Getenv("PATH"), "TRAPLINE_TEST_MARK=given", "HTTP_PROXY=http://corporate.example:3128"}
	c := &Command{AgentName: "sh", Path: "sh", Args: []string{"-c", `echo "mark=$TRAPLINE_TEST_MARK proxy=$HTTP_PROXY"`}}
	if err := c.Run(context.Background(), env); err != nil {
		t.Fatal(err)
	}
	out, err := os.ReadFile(filepath.Join(env.ArtifactsDir, results.StdoutFile))
	if err != nil {
		t.Fatal(err)
	}
	if got, want := strings.TrimSpace(string(out)), "mark=given proxy=http://127.0.0.1:1"; got != want {
		t.Fatalf("stdout = %q, want %q", got, want)
	}
	env.Environ = nil
	if err := c.Run(context.Background(), env); !errors.Is(err, ErrAgentNotStarted) || !errors.Is(err, ErrNoEnviron) {
		t.Fatalf("nil Environ: Run = %v, want ErrAgentNotStarted and ErrNoEnviron", err)
	}
}

// TestCommandEndsWhatTheAgentStarted is issue 49.12: an agent that starts `setsid sleep 300 &` (a
// session of its own: the group kill misses it) and exits at once. After the run the sleep is gone,
// not even a zombie, and the run says it had to kill it.
func TestCommandEndsWhatTheAgentStarted(t *testing.T) {
	env := testEnv(t)
	pidFile := filepath.Join(env.ArtifactsDir, "sleep.pid")
	c := &Command{AgentName: "leaver", Path: "sh", Args: []string{"-c", `setsid sleep 300 </dev/null >/dev/null 2>&1 & p=$!
		until [ "$(cat /proc/$p/comm)" = sleep ]; do :; done # setsid has become the sleep
		echo $p > ` + pidFile}}
	if err := c.Run(context.Background(), env); err != nil {
		t.Fatalf("Run = %v", err)
	}
	b, err := os.ReadFile(pidFile)
	if err != nil {
		t.Fatal(err)
	}
	pid := strings.TrimSpace(string(b))
	if cmdline, err := os.ReadFile("/proc/" + pid + "/cmdline"); err == nil && string(cmdline) == "sleep\x00300\x00" {
		t.Errorf("the agent's sleep %s is still in /proc after the run", pid)
	}
	killed, err := os.ReadFile(filepath.Join(env.ArtifactsDir, results.KilledFile))
	if err != nil || strings.TrimSpace(string(killed)) != "sleep (pid "+pid+")" {
		t.Errorf("%s = %q, %v; want the sleep named", results.KilledFile, killed, err)
	}
	if got := readKilled(filepath.Join(env.ArtifactsDir, results.KilledFile)); len(got) != 1 || got[0] != "sleep (pid "+pid+")" {
		t.Errorf("readKilled = %q", got)
	}
}
