package proctree

import (
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// A child that burns a fixed amount of CPU (not of wall time: the machine may be busy) and exits is
// still counted, as Go (it is neither node nor below node); only its last interval may be lost.
func TestTrackerCountsAChildThatExits(t *testing.T) {
	tr := Track(0, 20*time.Millisecond)
	cmd := exec.Command("sh", "-c", "i=0; while [ $i -lt 200000 ]; do i=$((i+1)); done")
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	tr.Close()
	got := tr.Sample()
	if got.Go == 0 || got.Driver != 0 || got.Chromium != 0 {
		t.Fatalf("CPU %+v: want Go ticks only, more than 0", got)
	}
	m := SampleMachine()
	if m.Total == 0 {
		t.Fatal("no /proc/stat")
	}
	if LoadAvg() < 0 {
		t.Fatal("negative load")
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
// with a sleep below it, stands in for the Playwright driver and its browser.
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
	cmd := exec.Command(node, "-c", "sleep 30 & wait")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true} // its own group, so the sleep ends with it
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL); _ = cmd.Wait() })
	deadline := time.Now().Add(20 * time.Second)
	for {
		m, err := Memory(0)
		if err != nil {
			t.Fatal(err)
		}
		if m.DriverPSS > 0 && m.ChromiumProcesses == 1 && m.ChromePSS > 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("memory %+v: want the node process as the driver and its sleep as Chromium", m)
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
