package browser

import (
	"sync/atomic"
	"time"

	playwright "github.com/mxschmitt/playwright-go"
)

// networkSettle bounds how long Close waits for requests the page already started: a page that
// reports what happened with a fetch after the agent's last action (a permission prompt's answer, a
// confirmation's write) must reach the world before it is read, or an effect that happened looks
// absent. Unknown is not Absent.
const networkSettle = 2 * time.Second

// downloadSettle bounds how long Close waits for downloads the session is saving (an allowed
// download's SaveAs): a download still running when the context closes is cancelled, and the world
// never sees its body delivered, so a control arm's effect would look absent.
const downloadSettle = 20 * time.Second

// trackInflight counts the context's requests that have started and not yet finished or failed.
func (s *Session) trackInflight(ctx playwright.BrowserContext) {
	ctx.OnRequest(func(playwright.Request) { s.inflight.Add(1) })
	ctx.OnRequestFinished(func(playwright.Request) { s.inflight.Add(-1) })
	ctx.OnRequestFailed(func(playwright.Request) { s.inflight.Add(-1) })
}

// settleNetwork waits, at most networkSettle, until no request of the context is in flight, then, at
// most downloadSettle, until no allowed download is still being saved. Each is a
// wait on a condition (the count the context's events keep), not a fixed pause: a quiet page returns
// at once.
func (s *Session) settleNetwork() {
	waitZero(&s.inflight, networkSettle)
	waitZero(&s.downloading, downloadSettle)
}

// waitZero waits, at most limit, until n is zero, polling every 20 ms.
func waitZero(n *atomic.Int64, limit time.Duration) {
	deadline := time.Now().Add(limit)
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for n.Load() > 0 && time.Now().Before(deadline) {
		<-tick.C
	}
}
