// Package proctree measures a process tree from /proc: the CPU time its processes spend, split by
// kind (Go, the Playwright Node.js driver, Chromium), and the machine-wide CPU share and load while it
// runs. getrusage of a test process misses Chromium's processes (they are not all reaped into its
// children's times), so benchmarks and timed suite runs walk the tree instead.
package proctree

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"
)

// ClockTicks is USER_HZ, the unit of /proc/<pid>/stat's CPU times (100 on every Linux we run on).
const ClockTicks = 100

// CPU is CPU time (user+system) in clock ticks, split by who spent it: Go (the root process and its
// non-driver descendants: go, ginkgo, test binaries), Driver (a process named node: Playwright's
// driver) and Chromium (every process below the driver: the browser, its zygotes and renderers).
type CPU struct{ Go, Driver, Chromium uint64 }

// Total is the sum of the three kinds.
func (c CPU) Total() uint64 { return c.Go + c.Driver + c.Chromium }

// Seconds converts clock ticks to seconds.
func Seconds(ticks uint64) float64 { return float64(ticks) / ClockTicks }

type kind int

const (
	kindGo kind = iota
	kindDriver
	kindChromium
)

// Tracker follows the tree below a root process through /proc/<pid>/task/<tid>/children and adds up
// each process's CPU as it grows, so that processes which exit between two samples (a renderer closed
// with its context) still count: sampled every interval in the background, a process loses at most
// what it spent in its last interval. Reaped children's times (cutime) are not used.
type Tracker struct {
	root  int
	mu    sync.Mutex
	last  map[int]uint64
	kind  map[int]kind
	total CPU
	stop  chan struct{}
	done  chan struct{}
}

// Track starts sampling the tree below root (this process when root is 0) every interval until
// Close.
func Track(root int, interval time.Duration) *Tracker {
	if root == 0 {
		root = os.Getpid()
	}
	t := &Tracker{root: root, last: map[int]uint64{}, kind: map[int]kind{}, stop: make(chan struct{}), done: make(chan struct{})}
	t.Sample()
	go func() {
		defer close(t.done)
		tick := time.NewTicker(interval)
		defer tick.Stop()
		for {
			select {
			case <-t.stop:
				return
			case <-tick.C:
				t.Sample()
			}
		}
	}()
	return t
}

// Close stops the background sampling (after a last sample).
func (t *Tracker) Close() {
	close(t.stop)
	<-t.done
	t.Sample()
}

// Sample walks the tree once, adds every process's growth since the last sample and returns the
// running total.
func (t *Tracker) Sample() CPU {
	t.mu.Lock()
	defer t.mu.Unlock()
	var walk func(pid int, parent kind)
	walk = func(pid int, parent kind) {
		k, seen := t.kind[pid]
		if !seen {
			k = classify(pid, parent)
			t.kind[pid] = k
		}
		if cur, ok := cpuTicks(pid); ok {
			if prev := t.last[pid]; cur > prev {
				switch k {
				case kindGo:
					t.total.Go += cur - prev
				case kindDriver:
					t.total.Driver += cur - prev
				default:
					t.total.Chromium += cur - prev
				}
			}
			t.last[pid] = cur
		}
		for _, c := range Children(pid) {
			walk(c, k)
		}
	}
	walk(t.root, kindGo)
	return t.total
}

// classify: below the driver everything is Chromium; a process named node is the driver; the rest is
// Go (and the shells between, which spend next to nothing). node covers nodejs too.
func classify(pid int, parent kind) kind {
	if parent != kindGo {
		return kindChromium
	}
	if comm, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "comm")); err == nil && strings.HasPrefix(strings.TrimSpace(string(comm)), "node") {
		return kindDriver
	}
	return kindGo
}

// Children lists the pids whose parent is pid, from every thread's children file.
func Children(pid int) []int {
	dir := filepath.Join("/proc", strconv.Itoa(pid), "task")
	tasks, _ := os.ReadDir(dir)
	var out []int
	for _, task := range tasks {
		raw, err := os.ReadFile(filepath.Join(dir, task.Name(), "children"))
		if err != nil {
			continue
		}
		for _, f := range strings.Fields(string(raw)) {
			if c, err := strconv.Atoi(f); err == nil {
				out = append(out, c)
			}
		}
	}
	return out
}

// cpuTicks is utime+stime of pid (fields 14 and 15 of /proc/<pid>/stat).
func cpuTicks(pid int) (uint64, bool) {
	raw, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
	if err != nil {
		return 0, false
	}
	s := string(raw)
	end := strings.LastIndexByte(s, ')') // the command name is in parentheses and may hold spaces
	if end < 0 {
		return 0, false
	}
	f := strings.Fields(s[end+1:]) // f[0] is field 3, the state
	if len(f) < 13 {
		return 0, false
	}
	u, _ := strconv.ParseUint(f[11], 10, 64)
	st, _ := strconv.ParseUint(f[12], 10, 64)
	return u + st, true
}

// Machine is a sample of the machine-wide CPU counters of /proc/stat (every process on the machine,
// ours and everyone else's), in clock ticks summed over the cores: Busy is all but idle and iowait.
type Machine struct{ Busy, Total uint64 }

// SampleMachine reads /proc/stat's cpu line; the zero Machine when it cannot be read.
func SampleMachine() Machine {
	raw, err := os.ReadFile("/proc/stat")
	if err != nil {
		return Machine{}
	}
	line, _, _ := strings.Cut(string(raw), "\n")
	var s Machine
	for i, f := range strings.Fields(line)[1:] {
		n, _ := strconv.ParseUint(f, 10, 64)
		s.Total += n
		if i != 3 && i != 4 { // idle and iowait
			s.Busy += n
		}
	}
	return s
}

// Share is the percentage of the machine's CPU time that was busy since m.
func (m Machine) Share() float64 {
	now := SampleMachine()
	if now.Total <= m.Total {
		return 0
	}
	return 100 * float64(now.Busy-m.Busy) / float64(now.Total-m.Total)
}

// LoadAvg is the machine's 1-minute load average (0 when unknown).
func LoadAvg() float64 {
	raw, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return 0
	}
	f := strings.Fields(string(raw))
	if len(f) == 0 {
		return 0
	}
	v, _ := strconv.ParseFloat(f[0], 64)
	return v
}
