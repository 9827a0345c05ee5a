package proctree

import (
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// burn runs a shell that burns a fixed amount of CPU (not of wall time: the machine may be busy) in
// a child and a grandchild that exit, and returns what they spent (their rusage, reaped) in clock
// ticks.
func burn(t *testing.T) uint64 {
	t.Helper()
	cmd := burner()
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	return used(cmd)
}

// burner is the command burn runs.
func burner() *exec.Cmd {
	loop := "i=0; while [ $i -lt 150000 ]; do i=$((i+1)); done"
	return exec.Command("sh", "-c", loop+"; sh -c '"+loop+"'")
}

// used is what an exited command and its reaped descendants spent, in clock ticks.
func used(cmd *exec.Cmd) uint64 {
	ru := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	return ticks(ru.Utime) + ticks(ru.Stime)
}

func ticks(tv syscall.Timeval) uint64 {
	return uint64(tv.Sec)*ClockTicks + uint64(tv.Usec)*ClockTicks/1e6
}

// selfTicks is this process's own CPU so far.
func selfTicks(t *testing.T) uint64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		t.Fatal(err)
	}
	return ticks(ru.Utime) + ticks(ru.Stime)
}

// A child that exits between two samples is counted in full, through its parent's reaped time, and
// once only: the tree's growth lies between the child's CPU and the child's plus this process's own,
// whether the samples came often (the child seen growing, then reaped) or never between.
func TestTrackerCountsAChildThatExits(t *testing.T) {
	for _, interval := range []time.Duration{10 * time.Millisecond, time.Hour} {
		self := selfTicks(t)
		tr := Track(0, interval)
		before := tr.Sample()
		child := burn(t)
		tr.Close()
		got := tr.Sample()
		grown := got.Total() - before.Total()
		own := selfTicks(t) - self
		if child < 20 {
			t.Fatalf("the child spent %d ticks: too little to judge", child)
		}
		if got.Driver != 0 || got.Chromium != 0 || grown+2 < child || grown > child+own+4 {
			t.Fatalf("interval %v: CPU %+v grew by %d ticks; want the child's %d and at most this process's own %d beside, all Go",
				interval, got, grown, child, own)
		}
	}
	if SampleMachine().Total == 0 {
		t.Fatal("no /proc/stat")
	}
	if LoadAvg() < 0 {
		t.Fatal("negative load")
	}
}

// A tracked root that exits between two samples (benchrecord's command) is counted in full with
// CloseExited: /proc shows nothing of it any more, its rusage does.
func TestTrackerCountsARootThatExited(t *testing.T) {
	cmd := burner()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	tr := Track(cmd.Process.Pid, time.Hour)
	if err := cmd.Wait(); err != nil {
		t.Fatal(err)
	}
	tr.CloseExited(cmd.ProcessState)
	got, want := tr.Sample(), used(cmd)
	if got.Total() < want || got.Total() > want+2 || got.Go != got.Total() {
		t.Fatalf("CPU %+v; want the root's %d ticks, all Go", got, want)
	}
}

func TestMemoryOfThisTree(t *testing.T) {
	m, err := Memory(0)
	if err != nil {
		t.Fatal(err)
	}
	if m.PSS <= 0 || m.RSS < m.PSS || m.USS <= 0 || m.USS > m.PSS || m.GoPSS != m.PSS || m.Processes < 1 {
		t.Fatalf("memory %+v", m)
	}
	if _, err := Memory(1 << 30); err == nil {
		t.Fatal("a process that does not exist must be an error")
	}
}

// A process named node is the driver and everything below it Chromium: a copy of sh named node,
// with a sleep below it, stands in for the Playwright driver and its browser. A process named
// chromium is Chromium wherever it is, with what is below it.
func TestKindsFollowTheDriver(t *testing.T) {
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("no sh")
	}
	raw, err := os.ReadFile(sh)
	if err != nil {
		t.Fatal(err)
	}
	node := filepath.Join(t.TempDir(), "node")
	if err := os.WriteFile(node, raw, 0o755); err != nil {
		t.Fatal(err)
	}
	// and a browser started by Go itself: a copy of sh named chromium, with a sleep below it
	chromium := filepath.Join(t.TempDir(), "chromium")
	if err := os.WriteFile(chromium, raw, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, bin := range []string{node, chromium} {
		cmd := exec.Command(bin, "-c", "sleep 30 & wait")
		cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true} // its own group, so the sleep ends with it
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL); _ = cmd.Wait() })
	}
	deadline := time.Now().Add(20 * time.Second)
	for {
		m, err := Memory(0)
		if err != nil {
			t.Fatal(err)
		}
		if m.DriverPSS > 0 && m.ChromiumProcesses == 3 && m.ChromePSS > 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("memory %+v: want the node process as the driver, its sleep, the chromium process and its sleep as Chromium", m)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// Alone is at least the tree's USS (private pages count in full) and at most its summed RSS, give or
// take what this process allocates between the two reads.
func TestAloneLiesBetweenUSSAndRSS(t *testing.T) {
	a, err := Alone(0)
	if err != nil {
		t.Fatal(err)
	}
	m, err := Memory(0)
	if err != nil {
		t.Fatal(err)
	}
	if a < m.USS-m.USS/10 || a > m.RSS+m.RSS/10 {
		t.Fatalf("alone %d kB; want between USS %d and RSS %d", a, m.USS, m.RSS)
	}
	if _, err := Alone(1 << 30); err == nil {
		t.Fatal("a process that does not exist must be an error")
	}
}

// The scan reads one stat file after another: a child reaped between the read of its parent and its
// own is gone from the scan while its parent's reaped time, read before, does not show it. It counts
// once: while it ran, up to the sample before, and its last part in its parent's growth, read again.
// A parent that never shows it (children reaped automatically) loses at most that sample's growth of
// its own, and never counts the child twice.
func TestTrackerCountsAChildReapedDuringTheScanOnce(t *testing.T) {
	const root, child = 100, 200
	proc := func(own, reaped uint64) procStat {
		return procStat{ppid: 1, start: 5, ticks: own, reaped: reaped, comm: "go"}
	}
	withChild := func(root procStat, cpu uint64) map[int]procStat {
		return map[int]procStat{100: root, child: {ppid: 100, start: 7, ticks: cpu, comm: "sh"}}
	}
	for _, tc := range []struct {
		name          string
		scan, reread  procStat // the root in the scan where the child is gone, and read again after it
		later         procStat // the root in the next scan
		want, atLeast uint64   // the growth over the three scans: at most, at least
	}{
		{"reaped before the scan", proc(101, 12), proc(101, 12), proc(102, 12), 2 + 2, 2 + 2},
		{"reaped between the parent's read and its own", proc(101, 0), proc(101, 12), proc(102, 12), 2 + 2, 2 + 2},
		{"never shown by its parent", proc(101, 0), proc(101, 0), proc(150, 0), 50, 50 - 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tr := &Tracker{root: root, seen: map[procID]seenProc{}}
			again := func(pid int) (procStat, bool) { return tc.reread, pid == root }
			first := tr.add(withChild(proc(100, 0), 10), again, nil).Total()
			tr.add(map[int]procStat{root: tc.scan}, again, nil)
			got := tr.add(map[int]procStat{root: tc.later}, again, nil).Total() - first
			if got > tc.want || got < tc.atLeast {
				t.Fatalf("grew by %d ticks; want %d (at least %d): the child's last 2 and the root's own", got, tc.want, tc.atLeast)
			}
		})
	}
}
