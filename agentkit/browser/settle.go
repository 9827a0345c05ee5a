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

// settleProbe is the page side of the cheap look: true when the page has no change clock (a frame the
// init script did not reach: the wait is for requests only), when it has been quiet for the window
// already, or when it saw no change from the start of the look through two frames and
// settleFramesMin; false when it changed meanwhile. Its argument is [settleQuiet, settleFramesMin] in
// milliseconds.
const settleProbe = `async ([q, min]) => {
  const d = Object.getOwnPropertyDescriptor(window, '` + quietName + `');
  if (!d || d.configurable || !d.get) return true;
  if (window.` + quietName + ` >= q) return true;
  const t0 = performance.now();
  const frame = () => new Promise(r => { requestAnimationFrame(() => r()); setTimeout(r, min); });
  await frame();
  await frame();
  const left = min - (performance.now() - t0);
  if (left > 0) await new Promise(r => setTimeout(r, left));
  return window.` + quietName + ` >= performance.now() - t0;
}`

// waitSettled waits, at most settleMax, until no request of the context is in flight and the page
// has stopped changing. It is a wait on conditions (the context's request events, the page's own
// change clock), never a fixed pause. A page quiet for settleQuiet, or that shows no change through
// a look of two animation frames (settleProbe), is observed at once: an action that changed nothing,
// or changed the page once and is done, costs one round trip and at most a couple of frames. Only a
// page that changed during the look is waited on for the full settleQuiet without a change, so an
// htmx-style swap (a fetch, then innerHTML replaced) lands before the snapshot. A page without the
// change clock (a frame the init script did not reach, an error page) is waited on for its requests
// only. An error (the page navigating away under the wait) ends the wait: the snapshot that follows
// reads the page as it is.
func (s *Session) waitSettled() {
	deadline := time.Now().Add(settleMax)
	for {
		waitZero(&s.inflight, time.Until(deadline))
		left := time.Until(deadline)
		if left < settlePoll { // also keeps the timeout above 0 ms, which Playwright reads as "no timeout"
			return
		}
		v, err := s.page.Evaluate(settleProbe, []any{settleQuiet.Milliseconds(), settleFramesMin.Milliseconds()})
		if err != nil {
			return
		}
		if settled, ok := v.(bool); ok && settled {
			if s.inflight.Load() == 0 {
				return
			}
			continue // a request started during the look: wait for it, then look again
		}
		s.settleWindows.Add(1)
		left = time.Until(deadline)
		if left < settlePoll {
			return
		}
		_, err = s.page.WaitForFunction(`q => { const d = Object.getOwnPropertyDescriptor(window, '`+quietName+`'); return !d || d.configurable || !d.get || window.`+quietName+` >= q; }`,
			float64(settleQuiet.Milliseconds()), playwright.PageWaitForFunctionOptions{Polling: float64(settlePoll.Milliseconds()), Timeout: ms(left)})
		if err != nil || s.inflight.Load() == 0 {
			return
		}
	}
}
