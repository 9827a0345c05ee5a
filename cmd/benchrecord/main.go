// Command benchrecord turns `go test -bench` output (stdin) into bench/results.json: the median of every
// metric of every benchmark over its repeated runs, with the machine and the command that produced it.
// Lines that are not benchmark lines are skipped, so a whole log (make test's, .ci/run's) can be fed in.
// With -merge the benchmarks read replace those of the same name in the file and the others stay.
//
//	go test -run '^$' -bench . -count 5 ./... | go run ./cmd/benchrecord -o bench/results.json -cmd "make bench"
//	go run ./cmd/benchrecord -merge -o bench/results.json -cmd ".ci/run" < ci.log
//
// `benchrecord time -name NAME -- COMMAND` runs a command and prints its timing as a benchmark line
// (wall time, its process tree's CPU, the machine's CPU share; see timeUsage): how bench/suite.sh,
// make test and .ci/run time their parts.
//
// `benchrecord calls DIR...` reads the Playwright traces of the arms under DIR and prints where their
// time went, driver call by driver call, as benchmark lines (calls.go).
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Result is the recorded file.
type Result struct {
	V          int                           `json:"v"`
	Recorded   time.Time                     `json:"recorded"`
	Command    string                        `json:"command"`
	Machine    Machine                       `json:"machine"`
	Benchmarks map[string]map[string]Measure `json:"benchmarks"` // name -> unit -> measure
	// Merged lists the later inputs merged in with -merge: when, by which command, which benchmarks.
	Merged []Merge `json:"merged,omitempty"`
	// Targets are the promises (targets.go) judged on these medians; a target without its figure
	// has no measured value and is not met.
	Targets []Judged `json:"targets"`
}

// Merge is one input merged into an existing results file.
type Merge struct {
	Recorded   time.Time `json:"recorded"`
	Command    string    `json:"command"`
	Benchmarks []string  `json:"benchmarks"`
}

// Machine describes where the numbers were taken.
type Machine struct {
	Cores    int    `json:"cores"`
	MemoryKB int    `json:"memory_kb"`
	GOOS     string `json:"goos"`
	GOARCH   string `json:"goarch"`
	CPU      string `json:"cpu,omitempty"`
}

// Measure is the median of a metric and how many runs it is taken over.
type Measure struct {
	Median float64   `json:"median"`
	Runs   []float64 `json:"runs"`
}

func main() {
	if len(os.Args) > 1 && os.Args[1] == "time" {
		os.Exit(timeMain(os.Args[2:], os.Stdout, os.Stderr))
	}
	if len(os.Args) > 1 && os.Args[1] == "calls" {
		os.Exit(callsMain(os.Args[2:], os.Stdout, os.Stderr))
	}
	out := flag.String("o", "bench/results.json", "the results file")
	cmd := flag.String("cmd", "make bench", "the command that produced the input, recorded with the numbers")
	merge := flag.Bool("merge", false, "merge into the results file: replace the benchmarks read, keep the others")
	flag.Parse()
	res, err := parse(os.Stdin)
	if err != nil {
		fmt.Fprintln(os.Stderr, "record:", err)
		os.Exit(1)
	}
	if len(res.Benchmarks) == 0 {
		fmt.Fprintln(os.Stderr, "record: no benchmark lines in the input")
		os.Exit(1)
	}
	now := time.Now().UTC()
	res.Command, res.Recorded, res.Machine = *cmd, now, machine()
	if *merge {
		if res, err = mergeInto(*out, res); err != nil {
			fmt.Fprintln(os.Stderr, "record:", err)
			os.Exit(1)
		}
	}
	res.Targets = judge(res.Benchmarks)
	b, _ := json.MarshalIndent(res, "", "  ")
	if err := os.WriteFile(*out, append(b, '\n'), 0o644); err != nil {
		fmt.Fprintln(os.Stderr, "record:", err)
		os.Exit(1)
	}
	for name, ms := range res.Benchmarks {
		for unit, m := range ms {
			fmt.Printf("%-40s %14.2f %s (median of %d)\n", name, m.Median, unit, len(m.Runs))
		}
	}
	for _, t := range res.Targets {
		switch {
		case t.Measured == nil:
			fmt.Printf("target %-60s not measured (%s %s)\n", t.What, t.Benchmark, t.Unit)
		case *t.Met:
			fmt.Printf("target %-60s met: %.4g %s <= %.4g\n", t.What, *t.Measured, t.Unit, t.Limit)
		default:
			fmt.Printf("target %-60s NOT met: %.4g %s > %.4g (%.2fx)\n", t.What, *t.Measured, t.Unit, t.Limit, *t.Over)
		}
	}
}

// mergeInto reads the results file at path and puts add's benchmarks into it, replacing those of the
// same name; the file's own command, time and machine stay, and add is listed under Merged.
func mergeInto(path string, add Result) (Result, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return add, fmt.Errorf("merge into %s: %w", path, err)
	}
	var old Result
	if err := json.Unmarshal(raw, &old); err != nil {
		return add, fmt.Errorf("merge into %s: %w", path, err)
	}
	if old.V != add.V {
		return add, fmt.Errorf("merge into %s: version %d, this benchrecord writes %d", path, old.V, add.V)
	}
	if old.Benchmarks == nil {
		old.Benchmarks = map[string]map[string]Measure{}
	}
	m := Merge{Recorded: add.Recorded, Command: add.Command}
	for name, ms := range add.Benchmarks {
		old.Benchmarks[name] = ms
		m.Benchmarks = append(m.Benchmarks, name)
	}
	slices.Sort(m.Benchmarks)
	old.Merged = append(old.Merged, m)
	return old, nil
}

// parse reads benchmark lines: "BenchmarkX-2  N  123 ns/op  4.5 unit ...".
func parse(r io.Reader) (Result, error) {
	res := Result{V: 1, Benchmarks: map[string]map[string]Measure{}}
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) < 4 || !strings.HasPrefix(f[0], "Benchmark") {
			continue
		}
		name := trimProcs(f[0])
		if res.Benchmarks[name] == nil {
			res.Benchmarks[name] = map[string]Measure{}
		}
		for i := 2; i+1 < len(f); i += 2 {
			v, err := strconv.ParseFloat(f[i], 64)
			if err != nil {
				return res, fmt.Errorf("%s: value %q: %w", name, f[i], err)
			}
			m := res.Benchmarks[name][f[i+1]]
			m.Runs = append(m.Runs, v)
			res.Benchmarks[name][f[i+1]] = m
		}
	}
	for _, ms := range res.Benchmarks {
		for unit, m := range ms {
			s := slices.Clone(m.Runs)
			slices.Sort(s)
			m.Median = s[len(s)/2]
			if len(s)%2 == 0 {
				m.Median = (s[len(s)/2-1] + s[len(s)/2]) / 2
			}
			ms[unit] = m
		}
	}
	return res, sc.Err()
}

func machine() Machine {
	m := Machine{Cores: runtime.NumCPU(), GOOS: runtime.GOOS, GOARCH: runtime.GOARCH}
	if b, err := os.ReadFile("/proc/meminfo"); err == nil {
		for _, line := range strings.Split(string(b), "\n") {
			if f := strings.Fields(line); len(f) >= 2 && f[0] == "MemTotal:" {
				m.MemoryKB, _ = strconv.Atoi(f[1])
			}
		}
	}
	if b, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		for _, line := range strings.Split(string(b), "\n") {
			if k, v, ok := strings.Cut(line, ":"); ok && strings.TrimSpace(k) == "model name" {
				m.CPU = strings.TrimSpace(v)
				break
			}
		}
	}
	return m
}

// trimProcs drops the -GOMAXPROCS suffix go test adds to a benchmark's name (BenchmarkDecide-2), and
// only that: a name of our own with a dash in it (BenchmarkCIRun/bench-smoke) stays whole.
func trimProcs(name string) string {
	i := strings.LastIndexByte(name, '-')
	if i <= 0 || i == len(name)-1 {
		return name
	}
	for _, c := range name[i+1:] {
		if c < '0' || c > '9' {
			return name
		}
	}
	return name[:i]
}
