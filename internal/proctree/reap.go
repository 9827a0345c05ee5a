package proctree

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"maps"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// What an agent under test starts must end with its run (issue 49.12): a Chromium that an MCP server
// launched through Puppeteer, in a process group of its own, outlived its run by half an hour,
// reparented to init. Killing the agent's process group misses every process that left it (setpgid,
// setsid, a daemon's double fork). So a run's processes are followed three ways:
//
//   - this process becomes a child subreaper (PR_SET_CHILD_SUBREAPER): an orphan below it is
//     reparented here, not to init, and stays in reach; orphans this process adopted are reaped here
//     (Reaper), so none stays a zombie;
//   - every process of the run carries the run's token in its environment (Watch.Env), inherited
//     whatever group or session it moves to;
//   - the tree below the run's first process is sampled while it runs, so a process that scrubbed its
//     environment is known if it was ever seen below it.
//
// At the run's end (Watch.End) every process still alive that any of the three names is killed,
// checked by its start time (a reused pid is another process), and reaped; End says which it killed.
//
// The subreaper is process-wide. os/exec's Wait is not confused: Go holds a pidfd for each child it
// started and waits by it, and the reaper never waits for a child this process holds a pidfd for; on a
// kernel without pidfds it reaps only orphans it saw arrive from elsewhere. A process that scrubs its
// environment before it is ever sampled and leaves the tree at once is not followed.

// TokenVar is the environment variable that carries a run's token to every process of the run.
const TokenVar = "TRAPLINE_PROCESS_TREE"

// sampleEvery is how often a Watch samples the tree below its root.
const sampleEvery = 500 * time.Millisecond

// reapEvery bounds how often the reaper scans for adopted zombies (besides on SIGCHLD).
const reapEvery = time.Second

// Ended is a process End killed: its pid and command name.
type Ended struct {
	PID  int
	Name string
}

// String renders "NAME (pid N)".
func (e Ended) String() string { return fmt.Sprintf("%s (pid %d)", e.Name, e.PID) }

// WriteEnded writes ended to path, one String a line; nothing (and no file) when it is empty.
func WriteEnded(path string, ended []Ended, perm os.FileMode) error {
	if len(ended) == 0 {
		return nil
	}
	var b strings.Builder
	for _, e := range ended {
		b.WriteString(e.String() + "\n")
	}
	return os.WriteFile(path, []byte(b.String()), perm)
}

// Watch follows the processes of one run. Make it with NewWatch, put Env in the run's first
// process's environment, Track the process once started, and End it after the process was waited
// for.
type Watch struct {
	token string
	rp    *reaper
	mu    sync.Mutex
	root  procID // the run's first process, by pid and start time
	seen  map[procID]bool
	stop  chan struct{}
	done  chan struct{}
}

// NewWatch makes a run's watch and makes this process the child subreaper (once).
func NewWatch() (*Watch, error) {
	b := make([]byte, 16)
	if _, err := rand.Read(b); err != nil {
		return nil, err
	}
	rp, err := startReaper()
	if err != nil {
		return nil, err
	}
	return &Watch{token: hex.EncodeToString(b), rp: rp, seen: map[procID]bool{}}, nil
}

// Env is the environment entry (KEY=VALUE) every process of the run must start with.
func (w *Watch) Env() string { return TokenVar + "=" + w.token }

// Track starts sampling the tree below root, the run's first process.
func (w *Watch) Track(root int) {
	st, _ := readStat(root, make([]byte, 4096))
	w.mu.Lock()
	w.root = procID{root, st.start}
	w.mu.Unlock()
	w.stop, w.done = make(chan struct{}), make(chan struct{})
	w.sample(scan())
	go func() {
		defer close(w.done)
		t := time.NewTicker(sampleEvery)
		defer t.Stop()
		for {
			select {
			case <-w.stop:
				return
			case <-t.C:
				w.sample(scan())
			}
		}
	}()
}

// sample adds every process below the root (and below any process seen before) to the seen set.
func (w *Watch) sample(procs map[int]procStat) {
	w.mu.Lock()
	defer w.mu.Unlock()
	for pid, p := range procs {
		if w.below(pid, p, procs) {
			w.seen[procID{pid, p.start}] = true
		}
	}
}

// below reports whether pid descends from the root or from a process seen before. Callers hold w.mu.
func (w *Watch) below(pid int, p procStat, procs map[int]procStat) bool {
	for hops := 0; hops < 64; hops++ {
		if id := (procID{pid, p.start}); (id == w.root && w.root.pid != 0) || w.seen[id] {
			return true
		}
		up, ok := procs[p.ppid]
		if !ok || p.ppid <= 1 {
			return false
		}
		pid, p = p.ppid, up
	}
	return false
}

// End stops the sampling, kills every process of the run still alive (by the token in its
// environment, by descent from the root, or seen below it before), reaps them and returns them, by
// pid. Call it after the root was waited for.
func (w *Watch) End() []Ended {
	if w.stop != nil {
		close(w.stop)
		<-w.done
	}
	var killed []Ended
	var ids []procID
	for pass := 0; pass < 5; pass++ { // a process may fork between the scan and the kill: scan again
		n := len(killed)
		procs := scan()
		w.sample(procs)
		for pid, p := range procs {
			if pid == w.rp.self || p.state == 'Z' || slices.Contains(ids, procID{pid, p.start}) || !w.ofRun(pid, p) {
				continue
			}
			if again, ok := readStat(pid, make([]byte, 4096)); !ok || again.start != p.start {
				continue // gone, or its pid is another process's now
			}
			if syscall.Kill(pid, syscall.SIGKILL) == nil {
				killed = append(killed, Ended{PID: pid, Name: p.comm})
				ids = append(ids, procID{pid, p.start})
			}
		}
		if len(killed) == n {
			break
		}
	}
	w.rp.awaitGone(ids, 5*time.Second)
	slices.SortFunc(killed, func(a, b Ended) int { return a.PID - b.PID })
	return killed
}

// ofRun reports whether the live process pid is one of the run's.
func (w *Watch) ofRun(pid int, p procStat) bool {
	w.mu.Lock()
	seen := w.seen[procID{pid, p.start}]
	w.mu.Unlock()
	if seen {
		return true
	}
	env, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/environ")
	if err != nil {
		return false
	}
	return slices.ContainsFunc(bytes.Split(env, []byte{0}), func(kv []byte) bool { return string(kv) == w.Env() })
}

// reaper is this process as child subreaper: it reaps the orphans it adopts.
type reaper struct {
	self   int
	pidfds bool // Go waits for its children by pidfd: a child without one here is no child of os/exec
	mu     sync.Mutex
}

var (
	theReaper     *reaper
	theReaperErr  error
	theReaperOnce sync.Once
)

// startReaper makes this process the child subreaper and starts reaping its adopted orphans, once:
// the subreaper is a property of the process, so it has one reaper (package state by necessity).
func startReaper() (*reaper, error) {
	theReaperOnce.Do(func() {
		if err := becomeSubreaper(); err != nil {
			theReaperErr = errors.Join(errors.New("proctree: become the child subreaper"), err)
			return
		}
		r := &reaper{self: os.Getpid(), pidfds: pidfdsWork()}
		sig := make(chan os.Signal, 1)
		signal.Notify(sig, syscall.SIGCHLD)
		go r.loop(sig)
		theReaper = r
	})
	return theReaper, theReaperErr
}

func (r *reaper) loop(sig <-chan os.Signal) {
	t := time.NewTicker(reapEvery)
	defer t.Stop()
	for {
		select {
		case <-sig:
		case <-t.C:
		}
		r.reap(nil)
	}
}

// reap waits for the zombie children of this process that os/exec does not own: orphans it adopted.
// Without pidfds it cannot tell them from os/exec's, and reaps only the processes of killed (a run's,
// which End killed). The zombies are listed before the pidfds: a child os/exec started holds its pidfd
// from its fork on.
func (r *reaper) reap(killed []procID) {
	r.mu.Lock()
	defer r.mu.Unlock()
	var zombies []int
	for pid, p := range r.children() {
		if p.state == 'Z' && (r.pidfds || slices.Contains(killed, procID{pid, p.start})) {
			zombies = append(zombies, pid)
		}
	}
	owned := goOwned()
	for _, pid := range zombies {
		if !owned[pid] {
			reapPid(pid)
		}
	}
}

// awaitGone waits until every process of ids has left /proc (reaped by its parent or by this
// reaper), for at most limit.
func (r *reaper) awaitGone(ids []procID, limit time.Duration) {
	buf := make([]byte, 4096)
	for deadline := time.Now().Add(limit); len(ids) > 0 && time.Now().Before(deadline); {
		r.reap(ids)
		ids = slices.DeleteFunc(ids, func(id procID) bool {
			p, ok := readStat(id.pid, buf)
			return !ok || p.start != id.start || (p.state == 'Z' && p.ppid != r.self)
		})
		if len(ids) > 0 {
			time.Sleep(10 * time.Millisecond)
		}
	}
}

// children returns this process's children: the pids /proc/self/task/*/children lists (each thread's
// own), or, on a kernel without those files, every process whose parent it is.
func (r *reaper) children() map[int]procStat {
	files, _ := filepath.Glob("/proc/self/task/*/children")
	if len(files) == 0 {
		out := scan()
		maps.DeleteFunc(out, func(_ int, p procStat) bool { return p.ppid != r.self })
		return out
	}
	out := map[int]procStat{}
	buf := make([]byte, 4096)
	for _, f := range files {
		b, _ := os.ReadFile(f)
		for _, field := range strings.Fields(string(b)) {
			if pid, err := strconv.Atoi(field); err == nil {
				if p, ok := readStat(pid, buf); ok && p.ppid == r.self {
					out[pid] = p
				}
			}
		}
	}
	return out
}

// goOwned is the set of pids this process holds a pidfd for (its fdinfo's "Pid:" line).
func goOwned() map[int]bool {
	out := map[int]bool{}
	ents, err := os.ReadDir("/proc/self/fdinfo")
	if err != nil {
		return out
	}
	for _, e := range ents {
		b, err := os.ReadFile("/proc/self/fdinfo/" + e.Name())
		if err != nil {
			continue
		}
		for _, line := range strings.Split(string(b), "\n") {
			if v, ok := strings.CutPrefix(line, "Pid:"); ok {
				if pid, err := strconv.Atoi(strings.TrimSpace(v)); err == nil && pid > 0 {
					out[pid] = true
				}
			}
		}
	}
	return out
}
