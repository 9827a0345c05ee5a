package main

import (
	"archive/zip"
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"path/filepath"
	"slices"
	"strings"
)

const callsUsage = `usage: benchrecord calls [-top N] DIR...

Reads the Playwright traces (trace.zip) under each DIR (an evidence folder: TRAPLINE_OUT's
evidence/) and prints, per driver call (Class.method), how many calls the arms made and the wall time
they took, as Go benchmark lines that benchrecord records like any other, longest first:

  BenchmarkTraceCalls/Frame.ariaSnapshot  1  <ns> ns/op  <n> calls  <ms> ms/call  <s> s  <pct> %  <arms> arms

<s> is the calls' wall time summed over every arm (two calls at once count twice), <pct> its share of
all calls' time. Where an arm's time goes, call by call: an arm's time is nearly all inside these
calls. A trace that cannot be read is an error naming it, never skipped.`

// callStat is one driver call's total over the traces read.
type callStat struct {
	name   string
	calls  int
	millis float64
}

// maxTraceEntry bounds the trace.trace read from one archive: the traces are trapline's own, but a
// tool that reads archives bounds what it inflates.
const maxTraceEntry = 256 << 20

// callsMain is `benchrecord calls`.
func callsMain(args []string, stdout, stderr io.Writer) int {
	fset := flag.NewFlagSet("calls", flag.ContinueOnError)
	fset.SetOutput(stderr)
	fset.Usage = func() { fmt.Fprintln(stderr, callsUsage) }
	top := fset.Int("top", 0, "print only the N longest (0: all)")
	if err := fset.Parse(args); err != nil {
		return 2
	}
	if fset.NArg() == 0 {
		fmt.Fprintf(stderr, "benchrecord calls: need at least one folder\n%s\n", callsUsage)
		return 2
	}
	stats := map[string]*callStat{}
	arms := 0
	for _, dir := range fset.Args() {
		n, err := readTraces(dir, stats)
		if err != nil {
			fmt.Fprintf(stderr, "benchrecord calls: %v\n", err)
			return 1
		}
		arms += n
	}
	if arms == 0 {
		fmt.Fprintf(stderr, "benchrecord calls: no trace.zip under %s\n", strings.Join(fset.Args(), ", "))
		return 1
	}
	list := make([]*callStat, 0, len(stats))
	total := 0.0
	for _, s := range stats {
		list = append(list, s)
		total += s.millis
	}
	slices.SortFunc(list, func(a, b *callStat) int {
		if a.millis != b.millis {
			if a.millis > b.millis {
				return -1
			}
			return 1
		}
		return strings.Compare(a.name, b.name)
	})
	if *top > 0 && len(list) > *top {
		list = list[:*top]
	}
	for _, s := range list {
		fmt.Fprintf(stdout, "BenchmarkTraceCalls/%s\t1\t%.0f ns/op\t%d calls\t%.1f ms/call\t%.2f s\t%.1f %%\t%d arms\n",
			s.name, s.millis*1e6, s.calls, s.millis/float64(s.calls), s.millis/1000, 100*s.millis/total, arms)
	}
	return 0
}

// readTraces adds the calls of every trace.zip under dir to stats and returns how many it read.
// Symbolic links are not followed.
func readTraces(dir string, stats map[string]*callStat) (int, error) {
	n := 0
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.Type().IsRegular() || d.Name() != "trace.zip" {
			return nil
		}
		if err := readTrace(p, stats); err != nil {
			return fmt.Errorf("%s: %w", p, err)
		}
		n++
		return nil
	})
	return n, err
}

// traceEvent is the part of a trace.trace line this reads: a call's "before" (its id, class, method
// and start) or "after" (its id and end), times in milliseconds.
type traceEvent struct {
	Type      string  `json:"type"`
	CallID    string  `json:"callId"`
	Class     string  `json:"class"`
	Method    string  `json:"method"`
	StartTime float64 `json:"startTime"`
	EndTime   float64 `json:"endTime"`
}

// readTrace adds one archive's calls to stats. A call without its end (the trace stopped first) is
// not counted.
func readTrace(path string, stats map[string]*callStat) error {
	zr, err := zip.OpenReader(path)
	if err != nil {
		return err
	}
	defer zr.Close()
	f, err := zr.Open("trace.trace")
	if err != nil {
		return fmt.Errorf("no trace.trace: %w", err)
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxTraceEntry+1))
	if err != nil {
		return err
	}
	if len(data) > maxTraceEntry {
		return fmt.Errorf("trace.trace is larger than %d bytes", maxTraceEntry)
	}
	type open struct {
		name  string
		start float64
	}
	started := map[string]open{}
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 0, 64<<10), maxTraceEntry)
	line := 0
	for sc.Scan() {
		line++
		var e traceEvent
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			return fmt.Errorf("trace.trace line %d: %w", line, err)
		}
		switch e.Type {
		case "before":
			if e.CallID == "" || e.Class == "" || e.Method == "" {
				return fmt.Errorf("trace.trace line %d: a call without its id, class or method", line)
			}
			started[e.CallID] = open{name: e.Class + "." + e.Method, start: e.StartTime}
		case "after":
			o, ok := started[e.CallID]
			if !ok {
				continue
			}
			delete(started, e.CallID)
			s := stats[o.name]
			if s == nil {
				s = &callStat{name: o.name}
				stats[o.name] = s
			}
			s.calls++
			s.millis += e.EndTime - o.start
		}
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("trace.trace line %d: %w", line+1, err)
	}
	if line == 0 {
		return errors.New("trace.trace is empty")
	}
	return nil
}
