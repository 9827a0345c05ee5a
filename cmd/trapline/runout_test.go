package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/trapline/trapline/agentkit/browser"
	"github.com/trapline/trapline/reports"
)

// TestRunOutInterrupted: a run marks its folder in progress and supersedes the previous run's
// summary, so `trapline report` on the folder refuses (exit 3) while it runs; a signal's interrupted
// summary is refused too. Before the fix the previous run's summary stayed and the report exited 0.
func TestRunOutInterrupted(t *testing.T) {
	dir := t.TempDir()
	previous := writeSummary(t, dir, reports.SummaryFile, arm("decoy-delete", "guarded", "pass"), arm("decoy-delete", "control", "pass"))
	writeDeep(t, filepath.Join(dir, "evidence", "old-trap", "guarded", "result.json"), "{}")
	if code, _, _ := runCLI("report", previous); code != exitOK {
		t.Fatalf("the previous run's summary: exit %d", code)
	}
	var log bytes.Buffer
	out, err := beginRunOut(dir, &log)
	if err != nil {
		t.Fatal(err)
	}
	defer out.close()
	if _, err := os.Stat(previous); !os.IsNotExist(err) {
		t.Errorf("the previous summary is still there: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "evidence", "old-trap")); !os.IsNotExist(err) {
		t.Errorf("the previous run's evidence is still there: %v", err)
	}
	if !strings.Contains(log.String(), "held a previous run; removed its summary.json, evidence") {
		t.Errorf("log: %s", log.String())
	}
	// A summary copied in while the run is in progress is not this run's.
	writeSummary(t, dir, reports.SummaryFile, arm("decoy-delete", "guarded", "pass"))
	checkCLI(t, []cliCase{{[]string{"report", dir}, exitBroken, []string{reports.InProgressFile, "not the summary of a finished run"}}})
	if again, err := beginRunOut(dir, io.Discard); err != nil {
		t.Errorf("the same process may start again: %v", err)
	} else {
		again.close() // its own temporary folder, and TMPDIR back to the first run's
	}
	// Another live process's marker: refused.
	writeFile(t, filepath.Join(dir, reports.InProgressFile), fmt.Sprintf("pid %d\n", os.Getppid()))
	if _, err := beginRunOut(dir, io.Discard); err == nil || !strings.Contains(err.Error(), "being written by another trapline run") {
		t.Errorf("a live run's folder: %v", err)
	}
	writeFile(t, filepath.Join(dir, reports.InProgressFile), fmt.Sprintf("pid %d\n", os.Getpid()))

	// The signal: the arms that ended, and the one cut off (its run returned the cancellation).
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	cut := reports.Run{Trap: "confirm-dialog", Category: "dialog", Arm: "guarded", Evidence: filepath.Join(dir, "evidence", "confirm-dialog", "guarded")}.
		Entry(nil, fmt.Errorf("harness: confirm-dialog/guarded: %w", context.Canceled))
	s := reports.Summary{Entries: []reports.Entry{arm("decoy-delete", "guarded", "pass"), arm("decoy-delete", "control", "pass"), cut}}
	log.Reset()
	err = out.end(ctx, s, fmt.Errorf("run interrupted: %w", context.Canceled), 0, &log)
	if exitCode(err) != exitBroken || !strings.Contains(err.Error(), "run interrupted by a signal after 3 arm(s)") {
		t.Errorf("end: %v (exit %d)", err, exitCode(err))
	}
	if strings.Contains(log.String(), "by luck") || !strings.Contains(log.String(), "INTERRUPTED") {
		t.Errorf("the arm cut off reads:\n%s", log.String())
	}
	if _, err := os.Stat(filepath.Join(dir, reports.InProgressFile)); !os.IsNotExist(err) {
		t.Errorf("marker left after the interrupted summary: %v", err)
	}
	checkCLI(t, []cliCase{{[]string{"report", filepath.Join(dir, reports.SummaryFile)}, exitBroken, []string{"the run was interrupted"}}})
}

// TestSweepRunTemps: the temporary folder of a run whose process is gone (SIGKILL) is removed by the
// next run; a live process's is kept.
func TestSweepRunTemps(t *testing.T) {
	base := t.TempDir()
	dead := exec.Command("true")
	if err := dead.Run(); err != nil {
		t.Fatalf("a process that has exited: %v", err)
	}
	gone := filepath.Join(base, fmt.Sprintf("%s%d-123", runTempPrefix, dead.Process.Pid))
	live := filepath.Join(base, fmt.Sprintf("%s%d-456", runTempPrefix, os.Getppid()))
	other := filepath.Join(base, "trapline-browser-789")
	for _, d := range []string{gone, live, other} {
		writeDeep(t, filepath.Join(d, "profile", "x"), "x")
	}
	if n := sweepRunTemps(base); n != 1 {
		t.Errorf("removed %d, want 1", n)
	}
	for d, want := range map[string]bool{gone: false, live: true, other: true} {
		if _, err := os.Stat(d); (err == nil) != want {
			t.Errorf("%s: exists %v, want %v", d, err == nil, want)
		}
	}
}

// TestRunWritesJUnitAndMerges: `trapline run` writes junit.xml beside summary.json, so two split runs'
// folders merge with `report --merge` (before the fix the merge refused them: no junit.xml). Its temp
// folder is gone after the run.
func TestRunWritesJUnitAndMerges(t *testing.T) {
	noProofCache(t)
	if _, err := os.Stat(browser.DefaultChromium); err != nil {
		t.Skip("no chromium")
	}
	if _, err := exec.LookPath("curl"); err != nil {
		t.Skip("no curl")
	}
	root := t.TempDir()
	var dirs []string
	for _, trap := range []string{"decoy-delete", "external-link"} {
		out := filepath.Join(root, trap)
		var stdout, stderr bytes.Buffer
		code := run([]string{"run", "--agent", "external", "--name", "reader", "--traps", trap, "--out", out, "--",
			"sh", "-c", `curl -sf -o /dev/null "$TRAPLINE_START_URL"`}, &stdout, &stderr)
		if code != exitOK {
			t.Fatalf("%s: exit %d\n%s\n%s", trap, code, stdout.String(), stderr.String())
		}
		if _, err := reports.ReadJUnit(filepath.Join(out, reports.JUnitFile)); err != nil {
			t.Fatal(err)
		}
		if _, err := os.Stat(filepath.Join(out, reports.InProgressFile)); !os.IsNotExist(err) {
			t.Errorf("%s: marker left after the run: %v", trap, err)
		}
		dirs = append(dirs, out)
	}
	if left, _ := filepath.Glob(filepath.Join(os.TempDir(), fmt.Sprintf("%s%d-*", runTempPrefix, os.Getpid()))); len(left) > 0 {
		t.Errorf("temp folders left: %v", left)
	}
	merged := filepath.Join(root, "merged")
	checkCLI(t, []cliCase{
		// each shard: the trap's control arm and the agent's arm
		{append([]string{"report", "--merge", "--out", merged}, dirs...), exitOK, []string{"merged 2 shard(s)", "(4 specs in JUnit, 0 failed)"}},
		{[]string{"report", merged}, exitOK, []string{"4 passed, 0 failed"}},
	})
}

// exitCode is the exit code main gives err.
func exitCode(err error) int {
	var ee *exitError
	switch {
	case err == nil:
		return exitOK
	case errors.As(err, &ee):
		return ee.code
	}
	return exitFailed
}

// writeDeep writes a file, creating its folders.
func writeDeep(t *testing.T, path, data string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	writeFile(t, path, data)
}

// TestRunSIGINT: SIGINT during `trapline run --out DIR` (an external agent still running) writes an
// interrupted summary in which the arm cut off reads "interrupted", exits 3, and `trapline report
// DIR` refuses it; before the fix no summary was written and the previous run's stayed, exit 0.
func TestRunSIGINT(t *testing.T) {
	noProofCache(t)
	if _, err := os.Stat(browser.DefaultChromium); err != nil {
		t.Skip("no chromium")
	}
	out := t.TempDir()
	writeSummary(t, out, reports.SummaryFile, arm("decoy-delete", "guarded", "pass"), arm("decoy-delete", "control", "pass"))
	started := filepath.Join(t.TempDir(), "started")
	type result struct {
		code           int
		stdout, stderr string
	}
	done := make(chan result, 1)
	go func() {
		var stdout, stderr bytes.Buffer
		code := run([]string{"run", "--agent", "external", "--name", "sleeper", "--traps", "decoy-delete", "--out", out, "--",
			"sh", "-c", "touch " + started + "; exec sleep 60"}, &stdout, &stderr)
		done <- result{code, stdout.String(), stderr.String()}
	}()
	// The agent has started, so cmdRun's signal handler (untilStopped) is installed: the signal
	// cannot kill the test process.
	deadline := time.Now().Add(60 * time.Second)
	for {
		if _, err := os.Stat(started); err == nil {
			break
		}
		select {
		case r := <-done:
			t.Fatalf("the run ended before its agent started: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
		case <-time.After(50 * time.Millisecond): // polls a file another process writes
		}
		if time.Now().After(deadline) {
			t.Fatal("the agent did not start")
		}
	}
	if err := syscall.Kill(os.Getpid(), syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	var r result
	select {
	case r = <-done:
	case <-time.After(60 * time.Second):
		t.Fatal("the run did not end after SIGINT")
	}
	if r.code != exitBroken || !strings.Contains(r.stdout, "decoy-delete blackbox/sleeper INTERRUPTED") || strings.Contains(r.stdout, "luck") {
		t.Fatalf("exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	checkCLI(t, []cliCase{{[]string{"report", out}, exitBroken, []string{"the run was interrupted"}}})
}
