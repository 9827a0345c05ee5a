// Command benchrecord turns `go test -bench` output (stdin) into bench/results.json: the median of every
// metric of every benchmark over its repeated runs, with the machine and the command that produced it.
//
//	go test -run '^$' -bench . -count 5 ./... | go run ./cmd/benchrecord -o bench/results.json -cmd "make bench"
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
	out := flag.String("o", "bench/results.json", "the results file")
	cmd := flag.String("cmd", "make bench", "the command that produced the input, recorded with the numbers")
	flag.Parse()
	res, err := parse(os.Stdin)
	if err != nil {
		fmt.Fprintln(os.Stderr, "record:", err)
		os.Exit(1)
	}
	res.Command, res.Recorded, res.Machine = *cmd, time.Now().UTC(), machine()
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
		name := f[0]
		if i := strings.LastIndexByte(name, '-'); i > 0 {
			name = name[:i]
		}
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
