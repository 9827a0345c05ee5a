package browser

import (
	"fmt"
	"os"

	playwright "github.com/mxschmitt/playwright-go"
)

// TraceEnv names the environment variable that sets the trace detail of sessions that leave
// SessionOptions.TraceDetail at TraceDefault: full, screenshots or log.
const TraceEnv = "TRAPLINE_TRACE"

// TraceDetail is what a Playwright trace records besides the action, console and network log (which
// every trace has).
type TraceDetail int

const (
	// TraceDefault is TRAPLINE_TRACE when set, else TraceScreenshots: an arm traced without DOM
	// snapshots took 0.62x to 0.87x the time of a fully traced one (BenchmarkArmTrace, BENCHMARKS.md).
	TraceDefault TraceDetail = iota
	// TraceFull records the screencast and DOM snapshots before and after each action: the trace
	// viewer can show and inspect the page at every step. On request (TRAPLINE_TRACE=full).
	TraceFull
	// TraceScreenshots records the screencast but no DOM snapshots.
	TraceScreenshots
	// TraceLog records neither: only the actions, console and network log.
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

// resolve turns TraceDefault into the detail TRAPLINE_TRACE names (TraceScreenshots when unset). An
// unknown value is an error naming the variable, never a silent default.
func (d TraceDetail) resolve() (TraceDetail, error) {
	if d != TraceDefault {
		return d, nil
	}
	v := os.Getenv(TraceEnv)
	if v == "" {
		return TraceScreenshots, nil
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
