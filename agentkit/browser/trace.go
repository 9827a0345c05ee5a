package browser

import playwright "github.com/mxschmitt/playwright-go"

// TraceDetail is what a Playwright trace records besides the action and network log (which every
// trace has). The zero value is the full trace.
type TraceDetail int

const (
	// TraceFull records screenshots (a screencast of the page) and DOM snapshots before and after each
	// action: the trace viewer can show the page at every step.
	TraceFull TraceDetail = iota
	// TraceScreenshots records the screencast but no DOM snapshots.
	TraceScreenshots
	// TraceLog records neither: only the actions, console and network log.
	TraceLog
)

// String names the detail as the bench and the docs do: full, screenshots or log.
func (d TraceDetail) String() string {
	switch d {
	case TraceFull:
		return "full"
	case TraceScreenshots:
		return "screenshots"
	case TraceLog:
		return "log"
	}
	return "unknown"
}

// tracingOptions are Playwright's tracing options for d.
func (d TraceDetail) tracingOptions() playwright.TracingStartOptions {
	return playwright.TracingStartOptions{
		Screenshots: playwright.Bool(d == TraceFull || d == TraceScreenshots),
		Snapshots:   playwright.Bool(d == TraceFull),
	}
}
