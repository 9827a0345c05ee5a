package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"time"

	"github.com/trapline/trapline/internal/proctree"
	"github.com/trapline/trapline/reports"
)

const timeUsage = `usage: benchrecord time -name NAME [-summary FILE] [-log FILE] -- COMMAND [ARG...]

Runs COMMAND, then prints one Go benchmark line on stdout that benchrecord records like any other:

  BenchmarkNAME  1  <ns> ns/op  <s> s  <cpu-s> cpu-s  <go-%> go-cpu-%  ...  <busy-%> cpu-busy-%  <load> loadavg1  <code> exit

cpu-s is the CPU time of COMMAND's whole process tree (Go, the Playwright driver, Chromium; sampled
from /proc every second, exited processes counted through their reapers), cpu-busy-% the
machine-wide share of busy CPU during the run (every process on the machine, from /proc/stat: a busy
machine makes every figure slower) and loadavg1 the load at the start. With -summary (a trapline summary.json COMMAND writes), it adds the number of arms and the
wall time and CPU time per arm. COMMAND's output goes to -log (both streams), else to stdout and
stderr as it is. The exit status is COMMAND's.`

// timeMain is `benchrecord time`: it times one command the way suite.sh, make test and .ci/run need.
func timeMain(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("time", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprintln(stderr, timeUsage) }
	name := fs.String("name", "", "the benchmark's name, without the Benchmark prefix (e.g. MakeTest/unit)")
	summary := fs.String("summary", "", "a summary.json the command writes: adds arms, s/arm and cpu-s/arm")
	logPath := fs.String("log", "", "the file for the command's output (default: stderr)")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	cmdArgs := fs.Args()
	if *name == "" || strings.ContainsAny(*name, " \t\n") || len(cmdArgs) == 0 {
		fmt.Fprintf(stderr, "benchrecord time: need -name (no spaces) and a command after --\n%s\n", timeUsage)
		return 2
	}
	cmdOut, cmdErr := stdout, stderr
	if *logPath != "" {
		f, err := os.Create(*logPath)
		if err != nil {
			fmt.Fprintf(stderr, "benchrecord time: log: %v\n", err)
			return 2
		}
		defer f.Close()
		cmdOut, cmdErr = f, f
	}
	m, code, err := timeCommand(cmdArgs, cmdOut, cmdErr)
	if err != nil {
		fmt.Fprintf(stderr, "benchrecord time %s: %v\n", *name, err)
		return 2
	}
	if *summary != "" {
		if err := m.addArms(*summary); err != nil {
			// The line is still printed: a broken run's time is recorded, flagged by its exit code.
			fmt.Fprintf(stderr, "benchrecord time %s: %v\n", *name, err)
		}
	}
	fmt.Fprintln(stdout, m.line("Benchmark"+*name, code))
	return code
}

// timing is what timeCommand measured.
type timing struct {
	wall  time.Duration
	cpu   proctree.CPU
	busy  float64 // machine-wide busy %, /proc/stat
	load  float64
	arms  int
	fails int // entries whose verdict is not pass
}

// timeCommand runs args with its output to stdout and stderr, tracking its tree's CPU. The returned
// code is the command's exit code; err is set only when it could not be started.
func timeCommand(args []string, stdout, stderr io.Writer) (timing, int, error) {
	cmd := exec.Command(args[0], args[1:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, stdout, stderr
	t := timing{load: proctree.LoadAvg()}
	machine, start := proctree.SampleMachine(), time.Now()
	if err := cmd.Start(); err != nil {
		return t, 0, fmt.Errorf("start %s: %w", args[0], err)
	}
	// Once a second: a process that exits between two samples still counts (its reaper's reaped time),
	// and the root's last second comes from its rusage. Every 100 ms the walk cost a tenth of a core on
	// a 2-core machine, three times over in .ci/run's nested timings.
	tr := proctree.Track(cmd.Process.Pid, time.Second)
	err := cmd.Wait()
	tr.CloseExited(cmd.ProcessState)
	t.wall, t.cpu, t.busy = time.Since(start), tr.Sample(), machine.Share()
	code := 0
	if err != nil {
		var exit *exec.ExitError
		if !errors.As(err, &exit) {
			return t, 0, fmt.Errorf("run %s: %w", args[0], err)
		}
		code = exit.ExitCode()
		if code < 0 {
			code = 1 // killed by a signal
		}
	}
	return t, code, nil
}

// addArms counts the arms (summary entries) and the failed ones.
func (t *timing) addArms(path string) error {
	s, err := reports.ReadJSON(path)
	if err != nil {
		return fmt.Errorf("arms: %w", err)
	}
	t.arms = len(s.Entries)
	for _, e := range s.Entries {
		if e.Status != reports.StatusPass {
			t.fails++
		}
	}
	return nil
}

// line is the Go benchmark line for t.
func (t timing) line(name string, code int) string {
	cpu := proctree.Seconds(t.cpu.Total())
	share := func(x uint64) float64 {
		if t.cpu.Total() == 0 {
			return 0
		}
		return 100 * float64(x) / float64(t.cpu.Total())
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s\t1\t%d ns/op\t%.3f s\t%.2f cpu-s\t%.1f go-cpu-%%\t%.1f driver-cpu-%%\t%.1f chromium-cpu-%%",
		name, t.wall.Nanoseconds(), t.wall.Seconds(), cpu, share(t.cpu.Go), share(t.cpu.Driver), share(t.cpu.Chromium))
	if t.arms > 0 {
		fmt.Fprintf(&b, "\t%d arms\t%.3f s/arm\t%.3f cpu-s/arm\t%d failed-arms", t.arms, t.wall.Seconds()/float64(t.arms), cpu/float64(t.arms), t.fails)
	}
	fmt.Fprintf(&b, "\t%.1f cpu-busy-%%\t%.1f loadavg1\t%d exit", t.busy, t.load, code)
	return b.String()
}
