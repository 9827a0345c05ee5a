package main

import (
	"encoding/json"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/trapline/trapline/reports"
)

func TestParseMedians(t *testing.T) {
	in := `goos: linux
BenchmarkDecide-2   	 1000	       600 ns/op	      64 B/op	       2 allocs/op
BenchmarkDecide-2   	 1000	       700 ns/op	      64 B/op	       2 allocs/op
BenchmarkDecide-2   	 1000	       500 ns/op	      64 B/op	       2 allocs/op
BenchmarkProxyOverhead-2 3000 184521 ns/op 52.00 added-p50-µs
BenchmarkCIRun/bench-smoke	1	25755676709 ns/op	25.756 s
PASS`
	res, err := parse(strings.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	if m := res.Benchmarks["BenchmarkDecide"]["ns/op"]; m.Median != 600 || len(m.Runs) != 3 {
		t.Fatalf("Decide ns/op = %+v", m)
	}
	if m := res.Benchmarks["BenchmarkProxyOverhead"]["added-p50-µs"]; m.Median != 52 {
		t.Fatalf("ProxyOverhead added = %+v", m)
	}
	if m := res.Benchmarks["BenchmarkCIRun/bench-smoke"]["s"]; m.Median != 25.756 {
		t.Fatalf("a dash in our own name must stay: CIRun/bench-smoke s = %+v (names %v)", m, slices.Sorted(maps.Keys(res.Benchmarks)))
	}
	if _, err := parse(strings.NewReader("BenchmarkX-2 1 abc ns/op")); err == nil {
		t.Fatal("a garbled value must be an error")
	}
}

func TestTimeLineIsRecordedWithArms(t *testing.T) {
	dir := t.TempDir()
	sum := filepath.Join(dir, "summary.json")
	s := reports.Summary{Entries: []reports.Entry{
		{Trap: "a", Arm: "guarded", Status: reports.StatusPass, Result: "held"},
		{Trap: "a", Arm: "control", Status: reports.StatusFail},
	}}
	s.Finish(time.Now())
	if err := reports.WriteJSON(sum, s); err != nil {
		t.Fatal(err)
	}
	var out, errOut strings.Builder
	// The command burns a little CPU, then fails: its code is passed on and the line still printed.
	code := timeMain([]string{"-name", "Suite/x", "-summary", sum, "--", "sh", "-c", "i=0; while [ $i -lt 20000 ]; do i=$((i+1)); done; exit 3"}, &out, &errOut)
	if code != 3 {
		t.Fatalf("exit %d, want the command's 3 (stderr %q)", code, errOut.String())
	}
	res, err := parse(strings.NewReader(out.String()))
	if err != nil {
		t.Fatalf("parse %q: %v", out.String(), err)
	}
	m := res.Benchmarks["BenchmarkSuite/x"]
	if m["arms"].Median != 2 || m["failed-arms"].Median != 1 || m["exit"].Median != 3 {
		t.Fatalf("line %q: arms %v failed %v exit %v", out.String(), m["arms"], m["failed-arms"], m["exit"])
	}
	if m["ns/op"].Median <= 0 || m["s/arm"].Median <= 0 {
		t.Fatalf("line %q: no wall time", out.String())
	}
	if _, ok := m["cpu-busy-%"]; !ok {
		t.Fatalf("line %q: no machine CPU share", out.String())
	}
	if code := timeMain([]string{"-name", "has space", "--", "true"}, &out, &errOut); code != 2 {
		t.Fatalf("a name with a space: exit %d, want 2", code)
	}
}

func TestMergeKeepsOtherBenchmarks(t *testing.T) {
	path := filepath.Join(t.TempDir(), "results.json")
	first, _ := parse(strings.NewReader("BenchmarkA-2 1 5 ns/op\nBenchmarkB-2 1 7 ns/op\n"))
	first.Command = "make bench"
	raw, _ := json.Marshal(first)
	if err := os.WriteFile(path, raw, 0o644); err != nil {
		t.Fatal(err)
	}
	add, _ := parse(strings.NewReader("ginkgo says hello\nBenchmarkB-2 1 9 ns/op\nBenchmarkCIRun/specs 1 3 ns/op 683.0 s\n"))
	add.Command = ".ci/run"
	got, err := mergeInto(path, add)
	if err != nil {
		t.Fatal(err)
	}
	if got.Command != "make bench" || got.Benchmarks["BenchmarkA"]["ns/op"].Median != 5 || got.Benchmarks["BenchmarkB"]["ns/op"].Median != 9 ||
		got.Benchmarks["BenchmarkCIRun/specs"]["s"].Median != 683 {
		t.Fatalf("merged: %+v", got)
	}
	if len(got.Merged) != 1 || got.Merged[0].Command != ".ci/run" || len(got.Merged[0].Benchmarks) != 2 {
		t.Fatalf("merged list: %+v", got.Merged)
	}
	if _, err := mergeInto(filepath.Join(t.TempDir(), "none.json"), add); err == nil {
		t.Fatal("merging into a missing file must be an error")
	}
}

func TestTargetsAreJudgedOnTheMedians(t *testing.T) {
	res, err := parse(strings.NewReader("BenchmarkAgentRunMemory/decoy-delete-2 1 5 ns/op 299.2 peak-pss-MB\n" +
		"BenchmarkPerAction/rows=100-2 3 1 ns/op 1.9 ratio\n"))
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]Judged{}
	for _, j := range judge(res.Benchmarks) {
		got[j.Benchmark+" "+j.Unit] = j
	}
	if j := got["BenchmarkAgentRunMemory/decoy-delete peak-pss-MB"]; j.Met == nil || !*j.Met || *j.Measured != 299.2 {
		t.Errorf("memory: %+v, want met at 299.2", j)
	}
	if j := got["BenchmarkPerAction/rows=100 ratio"]; j.Met == nil || *j.Met || *j.Over < 1.46 || *j.Over > 1.47 {
		t.Errorf("per action: %+v, want not met, 1.46x", j)
	}
	if j := got["BenchmarkSuite/catalog/embedded/procs=2 cpu-s/arm"]; j.Measured != nil || j.Met != nil {
		t.Errorf("suite without a figure: %+v, want neither measured nor met", j)
	}
	if len(got) != len(targets) {
		t.Errorf("%d targets judged, want %d", len(got), len(targets))
	}
}
