package browser

import (
	"fmt"

	playwright "github.com/mxschmitt/playwright-go"
)

// TraceEnv names the environment variable that sets the trace detail of sessions that leave
// SessionOptions.TraceDetail at TraceDefault: full, screenshots or log. It is read from the browser's
// Options.Environ (RemoteOptions.Environ), not from the process.
const TraceEnv = "TRAPLINE_TRACE"

// TraceDetail is what a Playwright trace records besides the action, console and network log (which
// every trace has).
type TraceDetail int

const (
	// TraceDefault is TRAPLINE_TRACE when set, else TraceLog: the action, console and network log on
	// every arm, cheaply. The screencast cost 0.18 of an arm's CPU on top of the log, and the DOM
	// snapshots as much again (BenchmarkArmTrace, BenchmarkArmCost, BENCHMARKS.md); they are recorded
	// on request (TRAPLINE_TRACE=screenshots or full).
	TraceDefault TraceDetail = iota
	// TraceFull records the screencast and DOM snapshots before and after each action: the trace
	// viewer can show and inspect the page at every step. On request (TRAPLINE_TRACE=full).
	TraceFull
	// TraceScreenshots records the screencast but no DOM snapshots. On request
	// (TRAPLINE_TRACE=screenshots); the default until issue 21's third pass.
	TraceScreenshots
	// TraceLog records neither: only the actions, console and network log. The default.
	TraceLog
)

var traceNames = map[TraceDetail]string{TraceDefault: "default", TraceFull: "full", TraceScreenshots: "screenshots", TraceLog: "log"}

// String names the detail as TRAPLINE_TRACE does.
func (d TraceDetail) String() string {
	if n, ok := traceNames[d]; ok {
		return n
	}
	return fmt.Sprintf("TraceDetail(%d)", int(d))
}

// resolve turns TraceDefault into the detail v, TRAPLINE_TRACE's value, names (TraceLog when
// empty). An unknown value is an error naming the variable, never a silent default.
func (d TraceDetail) resolve(v string) (TraceDetail, error) {
	if d != TraceDefault {
		return d, nil
	}
	if v == "" {
		return TraceLog, nil
	}
	for k, n := range traceNames {
		if n == v && k != TraceDefault {
			return k, nil
		}
	}
	return 0, fmt.Errorf("browser: %s=%q: want full, screenshots or log", TraceEnv, v)
}

// tracingOptions are Playwright's tracing options for a resolved d.
func (d TraceDetail) tracingOptions() playwright.TracingStartOptions {
	return playwright.TracingStartOptions{
		Screenshots: playwright.Bool(d == TraceFull || d == TraceScreenshots),
		Snapshots:   playwright.Bool(d == TraceFull),
	}
}
