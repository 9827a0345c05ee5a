package browser

import (
	"time"

	playwright "github.com/mxschmitt/playwright-go"
)

// networkSettle bounds how long Close waits for requests the page already started: a page that
// reports what happened with a fetch after the agent's last action (a permission prompt's answer, a
// confirmation's write) must reach the world before it is read, or an effect that happened looks
// absent. Unknown is not Absent.
const networkSettle = 2 * time.Second

// trackInflight counts the context's requests that have started and not yet finished or failed.
func (s *Session) trackInflight(ctx playwright.BrowserContext) {
	ctx.OnRequest(func(playwright.Request) { s.inflight.Add(1) })
	ctx.OnRequestFinished(func(playwright.Request) { s.inflight.Add(-1) })
	ctx.OnRequestFailed(func(playwright.Request) { s.inflight.Add(-1) })
}

// settleNetwork waits, at most networkSettle, until no request of the context is in flight. It is a
// wait on a condition (the count the context's events keep), not a fixed pause: a quiet page returns
// at once.
func (s *Session) settleNetwork() {
	deadline := time.Now().Add(networkSettle)
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for s.inflight.Load() > 0 && time.Now().Before(deadline) {
		<-tick.C
	}
}
