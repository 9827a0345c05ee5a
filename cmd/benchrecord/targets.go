package main

// Target is one figure trapline promises (issues 9, 21 and 33, BENCHMARKS.md), judged on the recorded
// medians: the benchmark and unit it is read from, the limit, and where the reference it is measured
// against sits (the same benchmark line, measured in the same run).
type Target struct {
	What      string  `json:"what"`
	Benchmark string  `json:"benchmark"`
	Unit      string  `json:"unit"`
	Limit     float64 `json:"limit"` // met when the median is at most this
	Reference string  `json:"reference"`
	Command   string  `json:"command"`
}

// Judged is a target with its measured median. Measured and Met are absent when the results hold no
// such figure: not measured is not met (Unknown is not Absent).
type Judged struct {
	Target
	Measured *float64 `json:"measured,omitempty"`
	Met      *bool    `json:"met,omitempty"`
	// Over is measured / limit: how far off (above 1) or how much room (below 1).
	Over *float64 `json:"over,omitempty"`
}

// targets are the promises, in BENCHMARKS.md's order.
var targets = []Target{
	{What: "catalog + scenario, both arms, embedded world, 2 processes", Benchmark: "BenchmarkSuite/catalog/embedded/procs=2", Unit: "s", Limit: 45,
		Reference: "arms, s/arm and cpu-s/arm of the same run; cpu-busy-% of the machine", Command: "make bench (bench/suite.sh)"},
	{What: "catalog + scenario, CPU per arm (the whole process tree, Chromium included)", Benchmark: "BenchmarkSuite/catalog/embedded/procs=2", Unit: "cpu-s/arm", Limit: 0.8,
		Reference: "the same run's wall time and the machine's cpu-busy-%", Command: "make bench (bench/suite.sh)"},
	{What: "per action at 100 rows, agentkit / plain playwright-go", Benchmark: "BenchmarkPerAction/rows=100", Unit: "ratio", Limit: 1.3,
		Reference: "plain playwright-go clicks on the same page, interleaved", Command: "go test -run '^$' -bench 'PerAction$' -benchtime 3x -count 3 ./bench"},
	{What: "per action at 500 rows, agentkit / plain playwright-go", Benchmark: "BenchmarkPerAction/rows=500", Unit: "ratio", Limit: 1.6,
		Reference: "plain playwright-go clicks on the same page, interleaved", Command: "go test -run '^$' -bench 'PerAction$' -benchtime 3x -count 3 ./bench"},
	{What: "peak memory of one agent run (decoy-delete, guarded), PSS", Benchmark: "BenchmarkAgentRunMemory/decoy-delete", Unit: "peak-pss-MB", Limit: 300,
		Reference: "the same run's peak PSS by kind (Go, driver, Chromium) and the driver levers", Command: "go test -run '^$' -bench AgentRunMemory -benchtime 1x -count 3 ./bench"},
	{What: "one agent-tools cell: Playwright MCP on decoy-delete, strictest fence + proxy policy, end to end", Benchmark: "BenchmarkAgentToolsCell/playwright-mcp", Unit: "s", Limit: 10,
		Reference: "the same trap's guarded agentkit arm (BenchmarkAgentToolsCell/agentkit), the cell with a Chromium of its own (per-run-s), cpu-s of the process tree", Command: "go test -run '^$' -bench AgentToolsCell -benchtime 3x ./bench"},
	{What: "one agent-tools cell: chrome-devtools-mcp on decoy-delete, strictest fence + proxy policy, end to end", Benchmark: "BenchmarkAgentToolsCell/chrome-devtools-mcp", Unit: "s", Limit: 10,
		Reference: "the same trap's guarded agentkit arm (BenchmarkAgentToolsCell/agentkit), the cell with a Chromium of its own (per-run-s), cpu-s of the process tree", Command: "go test -run '^$' -bench AgentToolsCell -benchtime 3x ./bench"},
	{What: "make test", Benchmark: "BenchmarkMakeTest/total", Unit: "s", Limit: 300,
		Reference: "its parts (BenchmarkMakeTest/<part>) in the same log", Command: "make test 2>&1 | tee test.log; go run ./cmd/benchrecord -merge -cmd 'make test' < test.log"},
	{What: ".ci/run on a fresh machine, apt included", Benchmark: "BenchmarkCIRun/total", Unit: "s", Limit: 900,
		Reference: "its parts (BenchmarkCIRun/<part>, BenchmarkMakeTest/<part>) in the same log", Command: ".ci/run 2>&1 | tee ci.log; go run ./cmd/benchrecord -merge -cmd .ci/run < ci.log"},
	{What: "make demo on a fresh clone, installs included", Benchmark: "BenchmarkMakeDemo/total", Unit: "s", Limit: 300,
		Reference: "the catalog's own time in the same run (BenchmarkSuite)", Command: "bin/benchrecord time -name MakeDemo/total -- make demo 2>&1 | tee demo.log; go run ./cmd/benchrecord -merge -cmd 'make demo' < demo.log"},
	{What: "Decide, a click on a named button", Benchmark: "BenchmarkDecide", Unit: "ns/op", Limit: 5000,
		Command: "go test -run '^$' -bench Decide -benchmem -count 5 ./agentkit/policy"},
	{What: "world start + close, embedded", Benchmark: "BenchmarkWorldStartEmbedded", Unit: "ns/op", Limit: 200e6,
		Command: "go test -run '^$' -bench WorldStart -benchtime 5x -count 5 ./bench"},
	{What: "proxy: added p50 per GET on loopback", Benchmark: "BenchmarkProxyOverhead", Unit: "added-p50-µs", Limit: 1000,
		Reference: "direct GETs, interleaved", Command: "go test -run '^$' -bench ProxyOverhead -benchtime 3000x -count 5 ./proxy"},
	{What: "observation: compact view / Playwright's aria snapshot", Benchmark: "BenchmarkObservationCost", Unit: "compact/default", Limit: 0.6,
		Reference: "the default snapshot of the same pages", Command: "go test -run '^$' -bench ObservationCost -benchtime 1x ./bench"},
}

// judge reads every target's figure from the benchmarks.
func judge(bench map[string]map[string]Measure) []Judged {
	out := make([]Judged, 0, len(targets))
	for _, t := range targets {
		j := Judged{Target: t}
		if m, ok := bench[t.Benchmark][t.Unit]; ok && len(m.Runs) > 0 {
			v, met := m.Median, m.Median <= t.Limit
			over := v / t.Limit
			j.Measured, j.Met, j.Over = &v, &met, &over
		}
		out = append(out, j)
	}
	return out
}
