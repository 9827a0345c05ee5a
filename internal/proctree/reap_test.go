package proctree

import (
	"bufio"
	"io"
	"os"
	"os/exec"
	"strconv"
	"sync"
	"testing"
	"time"
)

// alive reports whether pid is in /proc as the process started at start (a zombie counts: it has
// not been reaped).
func alive(pid int, start uint64) bool {
	p, ok := readStat(pid, make([]byte, 4096))
	return ok && p.start == start
}

// startShell runs sh -c script with w's token, returns it started (tracked), its stdin and the pids
// it prints, one a line, until it prints "ready".
func startShell(t *testing.T, w *Watch, script string) (*exec.Cmd, io.WriteCloser, []procID) {
	t.Helper()
	cmd := exec.Command("sh", "-c", script)
	cmd.Env = append(os.Environ(), w.Env())
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	w.Track(cmd.Process.Pid)
	var ids []procID
	sc := bufio.NewScanner(out)
	for sc.Scan() && sc.Text() != "ready" {
		pid, err := strconv.Atoi(sc.Text())
		if err != nil {
			t.Fatalf("the script printed %q", sc.Text())
		}
		st, ok := readStat(pid, make([]byte, 4096))
		if !ok {
			t.Fatalf("pid %d is gone already", pid)
		}
		ids = append(ids, procID{pid, st.start})
	}
	return cmd, stdin, ids
}

// TestWhatTheAgentStartsEndsWithItsRun is issue 49.12: a shell agent that starts `setsid sleep 300 &`
// (a session of its own, reparented when the shell exits) and one that scrubs its environment
// (`env -i`, seen below the shell while it ran) both end with the run, reaped (no zombie), and End
// names them; a process outside the run is left alone.
func TestWhatTheAgentStartsEndsWithItsRun(t *testing.T) {
	outside := exec.Command("sleep", "300")
	if err := outside.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = outside.Process.Kill(); _ = outside.Wait() })
	w, err := NewWatch()
	if err != nil {
		t.Fatal(err)
	}
	cmd, stdin, ids := startShell(t, w, `setsid sleep 300 & a=$!; env -i setsid sleep 301 & b=$!
		for p in $a $b; do until [ "$(cat /proc/$p/comm)" = sleep ]; do :; done; echo $p; done # both became the sleep
		echo ready; read line || true`)
	w.sample(scan())  // a sample while the shell still runs (the ticker's, made certain on a busy machine)
	_ = stdin.Close() // the shell exits: its sleeps are orphans
	if err := cmd.Wait(); err != nil {
		t.Fatalf("the shell: %v", err)
	}
	for _, id := range ids {
		if !alive(id.pid, id.start) {
			t.Fatalf("pid %d ended with the shell: the test proves nothing", id.pid)
		}
	}
	ended := w.End()
	var names []string
	for _, e := range ended {
		names = append(names, e.Name)
	}
	if len(ended) != 2 || names[0] != "sleep" || names[1] != "sleep" {
		t.Errorf("End = %+v, want the two sleeps", ended)
	}
	for _, id := range ids {
		if alive(id.pid, id.start) {
			t.Errorf("pid %d is still in /proc (alive or a zombie) after End", id.pid)
		}
	}
	if outside.ProcessState != nil || !alive(outside.Process.Pid, mustStart(t, outside.Process.Pid)) {
		t.Errorf("End killed a process outside the run")
	}
}

func mustStart(t *testing.T, pid int) uint64 {
	t.Helper()
	p, ok := readStat(pid, make([]byte, 4096))
	if !ok {
		t.Fatalf("pid %d is gone", pid)
	}
	return p.start
}

// TestTheSubreaperLeavesOSExecItsChildren: with this process the subreaper and its reaper running,
// os/exec still waits for its own children (the reaper never takes a child Go holds a pidfd for),
// and an orphan that exits by itself is reaped, not left a zombie.
func TestTheSubreaperLeavesOSExecItsChildren(t *testing.T) {
	w, err := NewWatch()
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	errs := make(chan error, 40)
	for range 40 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs <- exec.Command("sh", "-c", "exit 3").Run()
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 3 {
			t.Fatalf("os/exec's Wait: %v, want exit status 3", err)
		}
	}
	// An orphan (its parent gone at once) that ends by itself: reaped by the reaper.
	cmd, stdin, ids := startShell(t, w, `sleep 0.3 & echo $!; echo ready`)
	_ = stdin.Close()
	if err := cmd.Wait(); err != nil {
		t.Fatal(err)
	}
	id := ids[0]
	if p, _ := readStat(id.pid, make([]byte, 4096)); p.ppid != os.Getpid() {
		t.Fatalf("the orphan's parent is %d, not this process (the subreaper)", p.ppid)
	}
	for deadline := time.Now().Add(5 * time.Second); alive(id.pid, id.start) && time.Now().Before(deadline); {
		time.Sleep(10 * time.Millisecond) // until the orphan has ended and been reaped
	}
	if alive(id.pid, id.start) {
		t.Fatalf("the orphan %d is still in /proc 5 s on (a zombie?)", id.pid)
	}
	if ended := w.End(); len(ended) != 0 {
		t.Errorf("End = %+v, want nothing left", ended)
	}
}
