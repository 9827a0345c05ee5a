package browser

import (
	"time"

	playwright "github.com/mxschmitt/playwright-go"
)

// settleQuiet is how long a page that is still changing (settleProbe saw a change) must go without a
// change (a DOM mutation, a form-value write, an input event, an animation or transition event: the
// change counter's signals, changes.go) and without a request in flight before it is observed: an
// htmx-style swap (a fetch, then innerHTML replaced) lands inside this window instead of after the
// snapshot.
const settleQuiet = 100 * time.Millisecond

// settleMax bounds the whole wait: a page that never goes quiet (a ticking clock, a long poll) is
// observed as it is after settleMax.
const settleMax = 2 * time.Second

// settlePoll is how often the page's quiet time is read while waiting.
const settlePoll = 20 * time.Millisecond

// settleFramesMin is the shortest look at a page that has just changed: the look lasts two animation
// frames and no less than two 60 Hz frames' time, where frames come faster or not at all (a hidden
// page gets none: a timer ends each). A page that shows no change for that long after the action has
// stopped changing (a click handler's synchronous edit, a swap that has landed) and is observed at
// once; one that changes within it (a swap still landing, a chain of timers, htmx's settle step 20 ms
// after its swap) is given the whole settleQuiet.
const settleFramesMin = 34 * time.Millisecond

// settleProbe is the page side of the cheap look: settled when the page has no change clock (a frame
// the init script did not reach: the wait is for requests only), when it has been quiet for the window
// already, or when it saw no change from the start of the look through two frames and
// settleFramesMin; false when it changed meanwhile, or while a fetch or XMLHttpRequest the page started
// is unsettled (changes.go: the page knows of it before the driver's request event). A settled page answers with its change counter,
// read last (changes.go: the same read, flush and shadow-root walk as Session.changes), or -1 when it
// has none: the snapshot that follows needs the counter as it was before it, and this saves Observe
// a round trip to the page for it. Its argument is [settleQuiet, settleFramesMin] in milliseconds.
const settleProbe = `async ([q, min]) => {
  const counter = () => { const d = Object.getOwnPropertyDescriptor(window, '` + changeCounterName + `'); return d && !d.configurable && d.get ? window.` + changeCounterName + ` : -1; };
  const busy = () => { const d = Object.getOwnPropertyDescriptor(window, '` + pendingName + `'); return !!(d && !d.configurable && d.get && window.` + pendingName + ` > 0); };
  if (busy()) return false;
  const d = Object.getOwnPropertyDescriptor(window, '` + quietName + `');
  if (!d || d.configurable || !d.get) return counter();
  if (window.` + quietName + ` >= q) return counter();
  const t0 = performance.now();
  const frame = () => new Promise(r => { requestAnimationFrame(() => r()); setTimeout(r, min); });
  await frame();
  await frame();
  const left = min - (performance.now() - t0);
  if (left > 0) await new Promise(r => setTimeout(r, left));
  return window.` + quietName + ` >= performance.now() - t0 && !busy() ? counter() : false;
}`

// pageIdle is the page side of the wait for a page that changed or has requests of its own in
// flight: true when the page has been quiet for the window (its argument, in milliseconds) and no
// fetch or XMLHttpRequest it started is still unsettled (changes.go), or when it has no change clock.
const pageIdle = `q => {
  const own = (name) => { const d = Object.getOwnPropertyDescriptor(window, name); return d && !d.configurable && d.get; };
  if (own('` + pendingName + `') && window.` + pendingName + ` > 0) return false;
  return !own('` + quietName + `') || window.` + quietName + ` >= q;
}`

// pageRequestsSettled is Session.Close's look at the page: true when no fetch or XMLHttpRequest the
// page started is unsettled (changes.go), or when the page has no such count.
const pageRequestsSettled = `() => { const d = Object.getOwnPropertyDescriptor(window, '` + pendingName + `'); return !(d && !d.configurable && d.get && window.` + pendingName + ` > 0); }`

// settledRead is what the settle probe that ended waitSettled read: the page's change counter
// (known false when the page has none) and the session's navigation count read just before the
// probe. ok is false when the wait ended otherwise (its bound, an error, the full quiet window):
// Observe then reads both itself.
type settledRead struct {
	changes int64
	known   bool
	navs    int64
	ok      bool
}

// waitSettled waits, at most settleMax, until no request of the context is in flight (neither one the
// driver reported nor a fetch or XMLHttpRequest the page's script started) and the page has stopped
// changing. It is a wait on conditions (the context's request events, the page's own
// change clock), never a fixed pause. A page quiet for settleQuiet, or that shows no change through
// a look of two animation frames (settleProbe), is observed at once: an action that changed nothing,
// or changed the page once and is done, costs one round trip and at most a couple of frames. Only a
// page that changed during the look is waited on for the full settleQuiet without a change, so an
// htmx-style swap (a fetch, then innerHTML replaced) lands before the snapshot. A page without the
// change clock (a frame the init script did not reach, an error page) is waited on for its requests
// only. An error (the page navigating away under the wait) ends the wait: the snapshot that follows
// reads the page as it is. When the probe that ended the wait read the change counter, waitSettled
// returns it (settledRead).
func (s *Session) waitSettled() settledRead {
	deadline := time.Now().Add(settleMax)
	for {
		waitZero(&s.inflight, time.Until(deadline))
		left := time.Until(deadline)
		if left < settlePoll { // also keeps the timeout above 0 ms, which Playwright reads as "no timeout"
			return settledRead{}
		}
		// The navigation count before the probe: a navigation after it (a new document, a new
		// counter) makes the count differ at the next recheck, which then reads the whole page.
		navs := s.navs.Load()
		v, err := s.page.Evaluate(settleProbe, []any{settleQuiet.Milliseconds(), settleFramesMin.Milliseconds()})
		if err != nil {
			return settledRead{}
		}
		if n, settled := probeCounter(v); settled {
			if s.inflight.Load() == 0 {
				s.counterReads.Add(1)
				return settledRead{changes: n, known: n >= 0, navs: navs, ok: true}
			}
			continue // a request started during the look: wait for it, then look again
		}
		s.settleWindows.Add(1)
		left = time.Until(deadline)
		if left < settlePoll {
			return settledRead{}
		}
		_, err = s.page.WaitForFunction(pageIdle,
			float64(settleQuiet.Milliseconds()), playwright.PageWaitForFunctionOptions{Polling: float64(settlePoll.Milliseconds()), Timeout: ms(left)})
		if err != nil || s.inflight.Load() == 0 {
			return settledRead{}
		}
	}
}

// probeCounter reads settleProbe's answer: settled with the change counter (-1: the page has none),
// or not settled (false, or anything else).
func probeCounter(v any) (int64, bool) {
	switch x := v.(type) {
	case int:
		return int64(x), true
	case int64:
		return x, true
	case float64:
		return int64(x), true
	}
	return 0, false
}
