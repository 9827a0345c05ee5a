package bench

import (
	"time"

	"github.com/trapline/trapline/internal/proctree"
)

// The benchmarks' names for internal/proctree, the one home of the process-tree and machine CPU
// measures (cmd/benchrecord's `time` uses it too).

// clockTicks is USER_HZ, the unit of the tree's CPU times.
const clockTicks = proctree.ClockTicks

// treeCPU is CPU time (clock ticks) of this process's tree by kind: go (this test binary), driver
// (Playwright's Node.js driver) and chromium (the browser and every process below it).
type treeCPU struct{ goCPU, driver, chromium uint64 }

// cpuTracker follows this process's tree, sampled every 500 ms (proctree.Tracker: an exited process
// counts through its reaper, so the interval only bounds the running total's age between the
// explicit samples the benchmarks take).
type cpuTracker struct{ t *proctree.Tracker }

func startTracker() *cpuTracker { return &cpuTracker{t: proctree.Track(0, 500*time.Millisecond)} }

func (t *cpuTracker) close() { t.t.Close() }

// sample walks the tree once and returns the running total.
func (t *cpuTracker) sample() treeCPU {
	c := t.t.Sample()
	return treeCPU{goCPU: c.Go, driver: c.Driver, chromium: c.Chromium}
}

// loadAvg is the machine's 1-minute load average (0 when unknown).
func loadAvg() float64 { return proctree.LoadAvg() }

// cpuSample is the machine-wide CPU counters of /proc/stat: Chromium, the driver and every other
// process included (getrusage of this process would miss Chromium).
type cpuSample struct {
	busy uint64 // busy clock ticks over all cores
	m    proctree.Machine
}

func startCPU() cpuSample {
	m := proctree.SampleMachine()
	return cpuSample{busy: m.Busy, m: m}
}

// share is the percentage of the machine's CPU time that was busy since s.
func (s cpuSample) share() float64 { return s.m.Share() }
