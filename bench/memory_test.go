package bench

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/trapline/trapline/agentkit/browser"
	"github.com/trapline/trapline/harness"
	"github.com/trapline/trapline/traps"
	"github.com/trapline/trapline/traps/scenario"
)

// treeMemory sums the memory of this process and all its descendants (the Playwright driver, Chromium
// and its renderers): the resident set sizes, which count shared pages once per process, and the
// proportional set sizes (smaps_rollup), which split shared pages between the processes sharing them
// and so add up to what the tree really holds.
func treeMemory() (rssKB, pssKB int, err error) {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return 0, 0, fmt.Errorf("read /proc: %w", err)
	}
	parent := map[int]int{}
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue // the process ended
		}
		// The command name is in parentheses and may hold spaces: the fields after the last ')' are
		// state, then ppid.
		f := strings.Fields(string(b[bytes.LastIndexByte(b, ')')+1:]))
		if len(f) > 1 {
			parent[pid], _ = strconv.Atoi(f[1])
		}
	}
	self := os.Getpid()
	inTree := func(pid int) bool {
		for i := 0; pid > 1 && i < 64; i++ {
			if pid == self {
				return true
			}
			pid = parent[pid]
		}
		return false
	}
	for pid := range parent {
		if !inTree(pid) {
			continue
		}
		r, p := smapsRollup(pid)
		rssKB += r
		pssKB += p
	}
	return rssKB, pssKB, nil
}

func smapsRollup(pid int) (rssKB, pssKB int) {
	f, err := os.Open(fmt.Sprintf("/proc/%d/smaps_rollup", pid))
	if err != nil {
		return 0, 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fs := strings.Fields(sc.Text())
		if len(fs) < 2 {
			continue
		}
		v, _ := strconv.Atoi(fs[1])
		switch fs[0] {
		case "Rss:":
			rssKB = v
		case "Pss:":
			pssKB = v
		}
	}
	return rssKB, pssKB
}

// peakSampler samples treeMemory every 20 ms until stopped and keeps the peaks.
type peakSampler struct {
	stop chan struct{}
	done sync.WaitGroup
	mu   sync.Mutex
	rss  int
	pss  int
}

func startSampler() *peakSampler {
	s := &peakSampler{stop: make(chan struct{})}
	s.done.Add(1)
	go func() {
		defer s.done.Done()
		t := time.NewTicker(20 * time.Millisecond)
		defer t.Stop()
		for {
			if r, p, err := treeMemory(); err == nil {
				s.mu.Lock()
				s.rss, s.pss = max(s.rss, r), max(s.pss, p)
				s.mu.Unlock()
			}
			select {
			case <-s.stop:
				return
			case <-t.C:
			}
		}
	}()
	return s
}

func (s *peakSampler) Stop() (rssKB, pssKB int) {
	close(s.stop)
	s.done.Wait()
	return s.rss, s.pss
}

// BenchmarkAgentRunMemory measures the peak memory of one agent run, browser included: Chromium's
// launch, one guarded run of a trap through the harness (world, proxy, browser context, tracing, the
// agent loop), and the browser's close, sampled every 20 ms over the whole process tree. Each iteration
// is a fresh browser. Reported in MB: the peak proportional set size (the honest total) and the peak
// sum of resident set sizes (which counts shared pages in every process).
func BenchmarkAgentRunMemory(b *testing.B) {
	for _, id := range []string{"decoy-delete", "update-20-pratiche"} {
		b.Run(id, func(b *testing.B) { benchMemory(b, id) })
	}
}

func benchMemory(b *testing.B, id string) {
	ref, perm := mustPolicy(b, "reference"), mustPolicy(b, "permissive")
	trap, ok := findTrap(id)
	if !ok {
		b.Fatalf("no trap %q in the catalog or the scenario", id)
	}
	var peakRSS, peakPSS int
	for b.Loop() {
		s := startSampler()
		br, err := browser.Launch(browser.Options{})
		if err != nil {
			s.Stop()
			b.Skipf("no browser: %v", err)
		}
		res, err := harness.Run(context.Background(), harness.Options{Browser: br, Guarded: ref, Control: perm, OutDir: b.TempDir(), Trace: true}, trap, harness.Guarded)
		closeErr := br.Close()
		rss, pss := s.Stop()
		if err != nil || closeErr != nil {
			b.Fatalf("run: %v; close: %v", err, closeErr)
		}
		if pass, why := res.Verdict(); !pass {
			b.Fatalf("%s guarded arm failed, so the run is not representative: %s", id, why)
		}
		peakRSS, peakPSS = max(peakRSS, rss), max(peakPSS, pss)
	}
	b.ReportMetric(float64(peakPSS)/1024, "peak-pss-MB")
	b.ReportMetric(float64(peakRSS)/1024, "peak-rss-sum-MB")
}

// findTrap returns a catalog trap or the scenario by id.
func findTrap(id string) (traps.Trap, bool) {
	for _, t := range append(traps.Catalog(), scenario.Trap()) {
		if t.ID == id {
			return t, true
		}
	}
	return traps.Trap{}, false
}
