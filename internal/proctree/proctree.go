// Package proctree measures a process tree from /proc: the CPU time its processes spend, split by
// kind (Go, the Playwright Node.js driver, Chromium), and the machine-wide CPU share and load while it
// runs. getrusage of a test process misses Chromium's processes (they are not all reaped into its
// children's times), so benchmarks and timed suite runs walk the tree instead.
package proctree

import (
	"os"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// ClockTicks is USER_HZ, the unit of /proc/<pid>/stat's CPU times (100 on every Linux we run on).
const ClockTicks = 100

// CPU is CPU time (user+system) in clock ticks, split by who spent it: Go (the root process and its
// non-driver descendants: go, ginkgo, test binaries), Driver (a process named node: Playwright's
// driver) and Chromium (every process below the driver: the browser, its zygotes and renderers; and
// a browser a Go process started itself, with every process below it).
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

// Tracker follows the tree below a root process and adds up each process's CPU as it grows. A
// process's CPU is its own plus its reaped children's (cutime), so a process that exits between two
// samples still counts in full once its parent has reaped it: the parent's growth minus what the
// child had when last seen is added, to the parent's kind. The interval is how fresh the running total
// is and how much of an exited child's last interval goes to its reaper's kind, not how much is lost;
// only a process that leaves the tree alive (reparented to init: a daemon's double fork) is lost from
// then on. A process is known by its pid and start time, so a reused pid is a new process.
type Tracker struct {
	root      int
	rootStart uint64 // the root's start time, read at the first sample
	mu        sync.Mutex
	seen      map[procID]seenProc // the tree's processes at the last sample
	total     CPU
	stop      chan struct{}
	done      chan struct{}
}

// procID is a process's identity: pids are reused, a pid with its start time is not.
type procID struct {
	pid   int
	start uint64
}

// seenProc is what the last sample saw of one of the tree's processes.
type seenProc struct {
	kind   kind
	cpu    uint64 // its own CPU plus its reaped children's
	parent procID
}

// Track starts sampling the tree below root (this process when root is 0) every interval until
// Close.
func Track(root int, interval time.Duration) *Tracker {
	if root == 0 {
		root = os.Getpid()
	}
	t := &Tracker{root: root, seen: map[procID]seenProc{}, stop: make(chan struct{}), done: make(chan struct{})}
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

// CloseExited stops the sampling of a root process that has exited and been reaped (by this process:
// exec.Cmd.Wait), with its CPU from its rusage (its own and its reaped descendants'): the last sample
// adds what the root and the descendants it reaped spent since the previous one, which /proc no
// longer shows.
func (t *Tracker) CloseExited(root *os.ProcessState) {
	close(t.stop)
	<-t.done
	t.mu.Lock()
	defer t.mu.Unlock()
	var final uint64
	if ru, ok := root.SysUsage().(*syscall.Rusage); ok {
		final = tvTicks(ru.Utime) + tvTicks(ru.Stime)
	}
	t.sample(&final)
}

// tvTicks converts a rusage time to clock ticks.
func tvTicks(tv syscall.Timeval) uint64 {
	return uint64(tv.Sec)*ClockTicks + uint64(tv.Usec)*ClockTicks/1_000_000
}

// Sample reads /proc once (one stat file a process: its parent, name, start time and CPU), walks the
// tree below the root by the parents, adds every process's growth since the last sample and returns
// the running total. One read a process, however many threads it has.
func (t *Tracker) Sample() CPU {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.sample(nil)
}

// sample is Sample with t.mu held; rootFinal, when set, is the CPU of a root that /proc no longer
// shows (exited and reaped).
func (t *Tracker) sample(rootFinal *uint64) CPU {
	buf := make([]byte, 4096)
	return t.add(scan(), func(pid int) (procStat, bool) { return readStat(pid, buf) }, rootFinal)
}

// add walks one scan of /proc (procs, by pid) below the root and adds every process's growth since
// the last one; reread reads one process's stat again.
func (t *Tracker) add(procs map[int]procStat, reread func(pid int) (procStat, bool), rootFinal *uint64) CPU {
	if p, ok := procs[t.root]; ok && t.rootStart == 0 {
		t.rootStart = p.start
	} else if ok && p.start != t.rootStart {
		delete(procs, t.root) // the root's pid, reused by another process
	}
	if _, ok := procs[t.root]; !ok && rootFinal != nil && t.rootStart != 0 {
		procs[t.root] = procStat{start: t.rootStart, ticks: *rootFinal}
	}
	kids := children(procs)
	now := make(map[procID]seenProc, len(t.seen))
	var walk func(pid int, parent procID, pk kind)
	walk = func(pid int, parent procID, pk kind) {
		p, ok := procs[pid]
		if !ok {
			return
		}
		id := procID{pid, p.start}
		k := classify(p.comm, pk)
		if prev, ok := t.seen[id]; ok {
			k = prev.kind // a process keeps the kind it was first given
		}
		now[id] = seenProc{kind: k, cpu: p.ticks + p.reaped, parent: parent}
		for _, c := range kids[pid] {
			walk(c, id, k)
		}
	}
	walk(t.root, procID{}, kindGo)
	// A process gone from /proc since the last sample was reaped: its parent's reaped time grew by all
	// it had, of which what it had when last seen is already counted. When its parent is gone too, the
	// first ancestor still here reaped both.
	gone := func(id procID) bool { p, ok := procs[id.pid]; return !ok || p.start != id.start }
	counted := map[procID]uint64{}
	for id, prev := range t.seen {
		if !gone(id) {
			continue // alive: still in the tree, or left it (reparented); not reaped
		}
		reaper := prev.parent
		for {
			up, ok := t.seen[reaper]
			if !ok || !gone(reaper) {
				break
			}
			reaper = up.parent
		}
		counted[reaper] += prev.cpu
	}
	// The scan reads one stat file after another, so a child reaped between the reads of its parent
	// and its own is gone while the parent's reaped time, read before, does not show it: the next
	// sample would add it to the parent again. A parent's wait adds the child's times to its own
	// before the child leaves /proc, so the parent read again now shows it. (A parent that reaps its
	// children automatically, SIGCHLD ignored, never shows them: the min below keeps its growth at 0
	// for this one sample.)
	for id := range counted {
		if p, ok := now[id]; ok {
			if again, ok := reread(id.pid); ok && again.start == id.start && again.ticks+again.reaped > p.cpu {
				p.cpu = again.ticks + again.reaped
				now[id] = p
			}
		}
	}
	for id, p := range now {
		grown := p.cpu - min(p.cpu, t.seen[id].cpu+counted[id])
		switch p.kind {
		case kindGo:
			t.total.Go += grown
		case kindDriver:
			t.total.Driver += grown
		default:
			t.total.Chromium += grown
		}
	}
	t.seen = now
	return t.total
}

// classify: below the driver everything is Chromium; a process named node is the driver; one named
// chrom... (chromium, chromium-headless-shell: a browser a Go process started itself, as for a
// black-box agent) is Chromium, and so is everything below it; the rest is Go (and the shells
// between, which spend next to nothing). node covers nodejs too.
func classify(comm string, parent kind) kind {
	switch {
	case parent != kindGo, strings.HasPrefix(comm, "chrom"):
		return kindChromium
	case strings.HasPrefix(comm, "node"):
		return kindDriver
	}
	return kindGo
}

// children maps each pid of procs to the pids whose parent it is.
func children(procs map[int]procStat) map[int][]int {
	out := make(map[int][]int, len(procs))
	for pid, p := range procs {
		out[p.ppid] = append(out[p.ppid], pid)
	}
	return out
}

// procStat is what a process's /proc/<pid>/stat says of it.
type procStat struct {
	state  byte // field 3: R, S, D, Z (a zombie), ...
	ppid   int
	start  uint64 // field 22, in clock ticks after boot
	ticks  uint64 // utime+stime, fields 14 and 15
	reaped uint64 // cutime+cstime, fields 16 and 17: the reaped children's
	comm   string
}

// scan reads every process's stat file once; a process that exits meanwhile is left out.
func scan() map[int]procStat {
	f, err := os.Open("/proc")
	if err != nil {
		return nil
	}
	names, _ := f.Readdirnames(-1)
	_ = f.Close()
	out := make(map[int]procStat, len(names))
	buf := make([]byte, 4096)
	for _, name := range names {
		pid, err := strconv.Atoi(name)
		if err != nil {
			continue
		}
		if p, ok := readStat(pid, buf); ok {
			out[pid] = p
		}
	}
	return out
}

// readStat parses /proc/<pid>/stat, read into buf.
func readStat(pid int, buf []byte) (procStat, bool) {
	fd, err := os.Open("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return procStat{}, false
	}
	n, _ := fd.Read(buf)
	_ = fd.Close()
	s := string(buf[:n])
	open, end := strings.IndexByte(s, '('), strings.LastIndexByte(s, ')') // the name may hold spaces and parentheses
	if open < 0 || end < open {
		return procStat{}, false
	}
	f := strings.Fields(s[end+1:]) // f[0] is field 3, the state
	if len(f) < 20 {
		return procStat{}, false
	}
	ppid, _ := strconv.Atoi(f[1])
	u, _ := strconv.ParseUint(f[11], 10, 64)
	st, _ := strconv.ParseUint(f[12], 10, 64)
	cu, _ := strconv.ParseUint(f[13], 10, 64)
	cs, _ := strconv.ParseUint(f[14], 10, 64)
	start, _ := strconv.ParseUint(f[19], 10, 64)
	return procStat{state: f[0][0], ppid: ppid, start: start, ticks: u + st, reaped: cu + cs, comm: s[open+1 : end]}, true
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
