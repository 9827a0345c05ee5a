package browser

import (
	"time"

	playwright "github.com/mxschmitt/playwright-go"
)

// settleQuiet is how long the page must go without a change (a DOM mutation, a form-value write, an
// input event, an animation or transition event: the change counter's signals, changes.go) and
// without a request in flight before it is observed: an htmx-style swap (a fetch, then innerHTML
// replaced) lands inside this window instead of after the snapshot.
const settleQuiet = 100 * time.Millisecond

// settleMax bounds the whole wait: a page that never goes quiet (a ticking clock, a long poll) is
// observed as it is after settleMax.
const settleMax = 2 * time.Second

// settlePoll is how often the page's quiet time is read while waiting.
const settlePoll = 20 * time.Millisecond

// waitSettled waits, at most settleMax, until no request of the context is in flight and the page
// has seen no change for settleQuiet. It is a wait on those two conditions (the context's request
// events, the page's own change clock), never a fixed pause: a quiet page returns after one read. A
// page without the change clock (a frame the init script did not reach, an error page) is waited on
// for its requests only. An error (the page navigating away under the wait) ends the wait: the
// snapshot that follows reads the page as it is.
func (s *Session) waitSettled() {
	deadline := time.Now().Add(settleMax)
	for {
		waitZero(&s.inflight, time.Until(deadline))
		left := time.Until(deadline)
		if left < settlePoll { // also keeps the timeout above 0 ms, which Playwright reads as "no timeout"
			return
		}
		_, err := s.page.WaitForFunction(`q => { const d = Object.getOwnPropertyDescriptor(window, '`+quietName+`'); return !d || d.configurable || !d.get || window.`+quietName+` >= q; }`,
			float64(settleQuiet.Milliseconds()), playwright.PageWaitForFunctionOptions{Polling: float64(settlePoll.Milliseconds()), Timeout: ms(left)})
		if err != nil || s.inflight.Load() == 0 {
			return
		}
	}
}
