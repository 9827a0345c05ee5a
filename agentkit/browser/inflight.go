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

// trackInflight counts the context's requests that have started and not yet finished or failed, and
// forgets a page's requests when the page closes: Chromium sends neither "finished" nor "failed" for
// the requests of a page closed under them (a popup the popup guard closes while it loads), and a
// count that never comes down made every later settle wait its whole bound (2 s a snapshot).
func (s *Session) trackInflight(ctx playwright.BrowserContext, page playwright.Page) {
	s.pending = map[playwright.Request]struct{}{}
	ctx.OnRequest(func(r playwright.Request) { s.pendingSet(r, true) })
	ctx.OnRequestFinished(func(r playwright.Request) { s.pendingSet(r, false) })
	ctx.OnRequestFailed(func(r playwright.Request) { s.pendingSet(r, false) })
	page.OnClose(s.forgetPage)
	ctx.OnPage(func(p playwright.Page) { p.OnClose(s.forgetPage) })
}

// pendingSet adds r to the requests in flight (on) or removes it, and keeps the count in step.
func (s *Session) pendingSet(r playwright.Request, on bool) {
	s.pendingMu.Lock()
	defer s.pendingMu.Unlock()
	if on {
		s.pending[r] = struct{}{}
	} else {
		delete(s.pending, r)
	}
	s.inflight.Store(int64(len(s.pending)))
}

// forgetPage removes the requests of a closed page from the requests in flight. A request is the
// page's when its frame is one of the page's; the frame is read now, not when the request started
// (a popup's first request starts before its frame belongs to a page). A request without a frame
// (a service worker's) is kept: it outlives pages.
func (s *Session) forgetPage(p playwright.Page) {
	s.pendingMu.Lock()
	defer s.pendingMu.Unlock()
	for r := range s.pending {
		if f := r.Frame(); f != nil && f.Page() == p {
			delete(s.pending, r)
		}
	}
	s.inflight.Store(int64(len(s.pending)))
}

// settleNetwork waits, at most networkSettle, until no fetch or XMLHttpRequest the page started is
// unsettled (the page's own count, changes.go), then, at most networkSettle, until no request of the
// context is in flight, then, at most downloadSettle, until no allowed download is still being saved,
// then, at most refusalSettle, until every refusal counted is recorded with its screenshot (refuse).
// Each is a wait on a condition (the page's count, the counts the context's events keep), not a fixed
// pause: a quiet page returns at once. The page's count comes first: a request the page made is known
// to it at once, while the driver's event for it may come after the loop has ended (a click's fetch
// under load), and a request the closing context cancels before the route gate saw it would leave
// neither an effect nor a refusal. A settled call has been through the gate, which counts a refusal
// before it aborts (refuse) and records it before the count drops.
func (s *Session) settleNetwork() {
	s.waitPageRequests(networkSettle)
	waitZero(&s.inflight, networkSettle)
	waitZero(&s.downloading, downloadSettle)
	waitZero(&s.refusing, refusalSettle)
}

// refusalSettle bounds the wait for the refusals still being recorded (refusal.go): one screenshot's
// timeout and then some.
const refusalSettle = 8 * time.Second

// waitPageRequests waits, at most limit, until the page's fetch and XMLHttpRequest calls have all
// settled (pageRequestsSettled). A page that cannot answer (closed, navigating, crashed) ends the wait:
// the driver's count, which settleNetwork waits on next, is all there is then.
func (s *Session) waitPageRequests(limit time.Duration) {
	if s.page == nil || s.page.IsClosed() {
		return
	}
	_, _ = s.page.WaitForFunction(pageRequestsSettled, nil,
		playwright.PageWaitForFunctionOptions{Polling: float64(settlePoll.Milliseconds()), Timeout: ms(limit)})
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
