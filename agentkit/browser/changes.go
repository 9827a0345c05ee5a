package browser

import (
	"errors"
	"fmt"

	playwright "github.com/mxschmitt/playwright-go"

	"github.com/trapline/trapline/agentkit/act"
	"github.com/trapline/trapline/agentkit/action"
	"github.com/trapline/trapline/agentkit/observe"
)

// changeCounterName is the page-visible, read-only getter of the change counter.
const changeCounterName = "__traplineChanges"

// quietName is the page-visible, read-only getter of the milliseconds since the last change the
// counter saw (settle.go waits on it).
const quietName = "__traplineQuiet"

// pendingName is the page-visible, read-only getter of how many fetch and XMLHttpRequest calls (and
// WebSockets) the page has started and not yet seen settle (settle.go and Session.Close wait on it).
const pendingName = "__traplinePending"

// pendingGraceMS is how long, in the page's milliseconds, the page's count of fetch and XMLHttpRequest
// calls reads 1 after the last of them settled: a script that chains a request on a settled one (a
// read, then a write, through a timer or an event rather than the promise chain, whose next call the
// count already covers) makes the next call a moment later, and a wait that ended in that gap closed
// the context before the route gate saw it.
const pendingGraceMS = "50"

// swSettleMS bounds, in the page's milliseconds, how long a service worker's registration counts
// among the page's requests: a worker that never activates holds no wait longer.
const swSettleMS = "3000"

// changeCounter counts what can change the accessibility tree without a navigation, in every frame,
// from before any page script runs: DOM mutations (in the document, in every shadow root created by
// attachShadow, open or closed, and in every open declarative shadow root, found by a walk at each
// read of the counter), script writes to form values (value, checked, selected, selectedIndex:
// property writes are no DOM mutation), input and change events, and CSS animation and transition
// events. Reading the getter first walks the tree for shadow roots not yet watched, then flushes the
// observer's pending records (the quiet getter, polled while settling, only flushes). The counter and
// the observers live in a closure; the getter is non-configurable, so a page can neither reset nor
// replace it. A page that wants to hide a change would have to make it without any of these signals:
// the residual is a pure style change with no animation or transition (a :hover rule, a media query),
// and it can only affect elements other than the target, whose own role and name are re-read live.
// A second getter, quietName, says how long ago the last of these changes was (settle.go).
//
// A third, pendingName, counts the fetch and XMLHttpRequest calls the page made that have not settled
// (fetch's promise settled, a Response body read's promise settled, the request's loadend), and reads
// 1 for pendingGraceMS after the last one settled (and WebSockets until they open, fail or close): the page knows of a request the moment its script
// makes it, while the driver's request event comes later, after Chromium's network process and the
// driver have passed it on, and under load that can be after the snapshot, the agent's "done" and the
// context's close (stop 38: method-swap's DELETE, sent from a click handler, was refused by the route
// gate only while the session closed). A settled call has been judged: the route gate records its
// refusal before it aborts the request. The count only makes the harness wait; the fence is the route
// gate and the proxy, which a page that defeats the count (a fetch taken from another frame, a
// request made another way: a beacon, an image, a form) does not get past.
const changeCounter = `(() => {
  if (Object.getOwnPropertyDescriptor(window, '` + changeCounterName + `')) return;
  let n = 0, last = 0, pending = 0;
  const clock = performance.now.bind(performance);
  const bump = () => { n++; last = clock(); };
  const apply = Reflect.apply, take = MutationObserver.prototype.takeRecords, observe = MutationObserver.prototype.observe;
` + patchLog + `
  const mo = new MutationObserver((records) => { for (let i = 0; i < records.length; i++) { n++; record(records[i]); } last = clock(); });
  const opts = { subtree: true, childList: true, attributes: true, characterData: true };
  apply(observe, mo, [document, opts]);
  // Shadow roots the observer watches. A declarative one (<template shadowrootmode>, setHTMLUnsafe)
  // is attached without attachShadow: each read of the counter walks the tree for open roots it has
  // not seen, watches them from then on and counts each as a change (it may have changed unseen).
  const seen = new WeakSet(), has = WeakSet.prototype.has, add = WeakSet.prototype.add;
  const shadowOf = Object.getOwnPropertyDescriptor(Element.prototype, 'shadowRoot').get;
  const walker = Document.prototype.createTreeWalker, next = TreeWalker.prototype.nextNode;
  const watch = (root) => {
    apply(add, seen, [root]);
    try { apply(observe, mo, [root, opts]); } catch (e) { bump(); }
    bump();
    spoil('a shadow root');
  };
  const scan = (root) => {
    const w = apply(walker, document, [root, 1]);
    for (let e = apply(next, w, []); e; e = apply(next, w, [])) {
      const r = apply(shadowOf, e, []);
      if (!r) continue;
      if (!apply(has, seen, [r])) watch(r);
      scan(r);
    }
  };
  const taken = () => { const rs = apply(take, mo, []); for (let i = 0; i < rs.length; i++) { n++; record(rs[i]); } if (rs.length) last = clock(); };
  const flush = () => { scan(document); taken(); };
  const attach = Element.prototype.attachShadow;
  Element.prototype.attachShadow = function (...args) {
    const root = apply(attach, this, args);
    watch(root);
    return root;
  };
  const wrapSetter = (proto, prop) => {
    const d = proto && Object.getOwnPropertyDescriptor(proto, prop);
    if (!d || !d.set) return;
    const set = d.set;
    Object.defineProperty(proto, prop, { ...d, set(v) { bump(); note(this); return apply(set, this, [v]); } });
  };
  wrapSetter(window.HTMLInputElement && HTMLInputElement.prototype, 'value');
  wrapSetter(window.HTMLInputElement && HTMLInputElement.prototype, 'checked');
  wrapSetter(window.HTMLTextAreaElement && HTMLTextAreaElement.prototype, 'value');
  wrapSetter(window.HTMLSelectElement && HTMLSelectElement.prototype, 'value');
  wrapSetter(window.HTMLSelectElement && HTMLSelectElement.prototype, 'selectedIndex');
  wrapSetter(window.HTMLOptionElement && HTMLOptionElement.prototype, 'selected');
  for (const ev of ['focusin', 'focusout']) {
    window.addEventListener(ev, (e) => { bump(); noteFocus(e); }, true);
  }
  for (const ev of ['input', 'change', 'focus', 'blur', 'load', 'error']) {
    window.addEventListener(ev, (e) => { bump(); noteEvent(e); }, true);
  }
  for (const ev of ['animationstart', 'animationiteration', 'animationend', 'animationcancel', 'transitionrun', 'transitionend', 'transitioncancel', 'toggle', 'beforetoggle', 'reset', 'fullscreenchange', 'hashchange']) {
    window.addEventListener(ev, (e) => { bump(); spoil(e.type); }, true);
  }
  const then = Promise.prototype.then, addListener = EventTarget.prototype.addEventListener;
  let settledAt = -Infinity;
  // begin counts one call and returns the function that settles it, once.
  const begin = () => {
    pending++;
    let open = true;
    return () => { if (open) { open = false; pending--; settledAt = clock(); } };
  };
  const track = (p) => { const settle = begin(); apply(then, p, [settle, settle]); return p; };
  const fetch0 = window.fetch;
  if (typeof fetch0 === 'function') {
    window.fetch = function fetch(...args) { return track(apply(fetch0, this, args)); };
  }
  const R = window.Response && Response.prototype;
  for (const m of ['text', 'json', 'arrayBuffer', 'blob', 'formData', 'bytes']) {
    const f = R && R[m];
    if (typeof f === 'function') R[m] = { [m](...args) { return track(apply(f, this, args)); } }[m];
  }
  // A service worker's registration counts until its worker is activated or redundant (bounded by
  // swSettleMS, Go side, of the page's clock): the worker's own install and activate requests run outside
  // any page, and between the script's request and theirs the driver knows of none in flight, so a
  // session closed in that gap killed the worker before its requests left (the service-worker trap's
  // control arm read "did not fire" in two of five catalog runs).
  const SWC = window.ServiceWorkerContainer && ServiceWorkerContainer.prototype;
  const register = SWC && SWC.register, timer = window.setTimeout;
  if (typeof register === 'function') {
    SWC.register = { register(...args) {
      const p = apply(register, this, args);
      const settle = begin();
      apply(timer, window, [settle, ` + swSettleMS + `]);
      apply(then, p, [(reg) => {
        const w = reg && (reg.installing || reg.waiting);
        if (!w) { settle(); return; }
        const check = () => { if (w.state === 'activated' || w.state === 'redundant') settle(); };
        apply(addListener, w, ['statechange', check]);
        check();
      }, settle]);
      return p;
    } }.register;
  }
  // A WebSocket counts until it opens, fails or closes: it is no request of the driver's, so nothing
  // else held Close while Chromium had yet to send its CONNECT to the proxy (websocket-exfil's guarded
  // arm under load). Opened or refused, the proxy has judged it.
  const WS = window.WebSocket;
  if (typeof WS === 'function') {
    window.WebSocket = { WebSocket: class extends WS {
      constructor(...args) {
        super(...args);
        const settle = begin();
        for (const ev of ['open', 'error', 'close']) apply(addListener, this, [ev, settle]);
      }
    } }.WebSocket;
  }
  const send = window.XMLHttpRequest && XMLHttpRequest.prototype.send;
  if (send) {
    XMLHttpRequest.prototype.send = function send(...args) {
      const settle = begin();
      apply(addListener, this, ['loadend', settle]);
      try { return apply(send, this, args); } catch (e) { settle(); throw e; }
    };
  }
  Object.defineProperty(window, '` + pendingName + `', { get() { return pending > 0 ? pending : (clock() - settledAt < ` + pendingGraceMS + ` ? 1 : 0); }, configurable: false, enumerable: false });
  Object.defineProperty(window, '` + changeCounterName + `', { get() { flush(); return n; }, configurable: false, enumerable: false });
  Object.defineProperty(window, '` + changedSinceName + `', { value: changedSince, writable: false, configurable: false, enumerable: false });
  const drain = taken;
  Object.defineProperty(window, '` + quietName + `', { get() { drain(); return clock() - last; }, configurable: false, enumerable: false });
})();`

// errNoCounter is returned when the page has no change counter (a frame the init script did not
// reach, or a page that broke it): the caller reads the whole page instead.
var errNoCounter = errors.New("no change counter on the page")

// installChangeCounter adds changeCounter to every frame of every page of the session.
func (s *Session) installChangeCounter() error {
	if err := s.ctx.AddInitScript(playwright.Script{Content: playwright.String(changeCounter)}); err != nil {
		return fmt.Errorf("browser: install change counter: %w", err)
	}
	return nil
}

// changes reads the change counter of the page, or errNoCounter. Only a page with a single frame has
// a counter that covers all it shows; a page with frames returns errNoCounter too.
func (s *Session) changes() (int64, error) {
	if len(s.page.Frames()) != 1 {
		return 0, errNoCounter
	}
	s.counterReads.Add(1)
	v, err := s.page.Evaluate(`() => { const d = Object.getOwnPropertyDescriptor(window, '` + changeCounterName + `'); return d && !d.configurable && d.get ? window.` + changeCounterName + ` : -1; }`)
	if err != nil {
		return 0, fmt.Errorf("browser: read change counter: %w", err)
	}
	var n int64 = -1
	switch x := v.(type) {
	case int:
		n = int64(x)
	case int64:
		n = x
	case float64:
		n = int64(x)
	}
	if n < 0 {
		return 0, errNoCounter
	}
	return n, nil
}

// recheckTarget is the cheap pre-dispatch check: when the page's URL, navigation count and change
// counter are what they were when obs was taken, it re-reads the target element alone (an
// element-scoped AI snapshot of its ref) and compares its role and name with what obs recorded.
// handled is false when the cheap check cannot decide (the page changed, it has frames, the counter or
// the element snapshot could not be read): the caller then reads the whole page, as before. handled
// with ok false means the target changed: STALE_REF, never a guess.
//
// The counter is read once, after the element: it never goes down (every signal adds to it), so the
// value the snapshot recorded, read again after the element's re-read, proves that nothing it counts
// changed from the snapshot to the end of that re-read. (A read before the element too would only save
// an element read on a page that has changed; on the common, unchanged page it is one more round trip
// to the page per action.) A new document starts a new counter: the URL and the navigation count
// (navcount.go) catch a reload, and a new document has no ref map for the element read anyway.
//
// An element-scoped snapshot replaces Playwright's ref map with the element's subtree, so after it only
// the target's own ref (and its descendants') resolve until the next full snapshot; verify takes one.
// A later action on obs with another ref fails this check's element read and falls back to the full
// read, which restores the map.
func (s *Session) recheckTarget(obs *observe.Observation, a action.Action, target observe.Node) (res act.Result, ok, handled bool) {
	s.mu.Lock()
	at, known, navs := s.latestChanges, s.latestChangesKnown, s.latestNavs
	s.mu.Unlock()
	// A page with one frame (changes checks it) has every ref in its main frame, whatever the prefix:
	// Playwright numbers the main frames of later pages of the browser f1, f2, ... too.
	if s.opts.FullReread || !known || target.RawRef == "" || s.page.URL() != obs.URL || s.navs.Load() != navs {
		return act.Result{}, false, false
	}
	if s.opts.CounterBeforeTarget { // the A/B of BenchmarkPerActionCounterReads: the read this check no longer needs
		if now, err := s.changes(); err != nil || now != at {
			return act.Result{}, false, false
		}
	}
	// A ref not in Playwright's ref map (any more) fails the element's snapshot at once (the driver's
	// "does not match any element": it does not wait for the element), and the full read decides; so
	// does one that names two elements (a strict-mode error).
	// When the last snapshot was a patch's or another target's (patch.go), the ref map holds that
	// element's refs alone (refmap.go): the target is looked for by its role and name instead, and is
	// the target only if it shows the target's ref.
	byRole := !s.holdsRef(target.RawRef)
	var raw string
	var err error
	if byRole {
		raw, err = s.targetByRole(target)
	} else {
		raw, err = s.page.Locator("aria-ref=" + target.RawRef).AriaSnapshot(playwright.LocatorAriaSnapshotOptions{Mode: playwright.AriaSnapshotModeAi, Timeout: ms(s.opts.ActionTimeout)})
		s.heldRefs(raw)
	}
	if err != nil {
		return act.Result{}, false, false
	}
	sub, err := observe.Parse(obs.SnapshotID, obs.URL, raw)
	if err != nil {
		return act.Result{}, false, false
	}
	// The counter after the element: any change since the snapshot sends the caller to the full read.
	if again, err := s.changes(); err != nil || again != at || s.navs.Load() != navs {
		return act.Result{}, false, false
	}
	el, found := findRaw(sub, target.RawRef)
	if !found && byRole {
		return act.Result{}, false, false // another element of its role and name: the full read decides
	}
	if !found {
		return act.Failed(act.StaleRef, "%s is no longer the element the snapshot described", a.Ref), false, true
	}
	if el.Role != target.Role || el.EvidenceName() != target.EvidenceName() { // icon glyphs included
		return act.Failed(act.StaleRef, "%s was %s %q and is now %s %q", a.Ref, target.Role, target.EvidenceName(), el.Role, el.EvidenceName()), false, true
	}
	s.targetRechecks.Add(1)
	return act.Result{}, true, true
}

// observeChanges reads the change counter just before a full snapshot, for recheckTarget: a change
// during the snapshot makes the counter differ, so the next check falls back to a full read.
func (s *Session) observeChanges() (int64, bool) {
	n, err := s.changes()
	return n, err == nil
}

// CounterReads is how many times the session read the page's change counter (for benchmarks and
// tests: each read is a round trip to the page, or the end of the settle probe's: settle.go).
func (s *Session) CounterReads() int64 { return s.counterReads.Load() }

// TargetRechecks is how many dispatches of the session were re-resolved by the cheap check of the
// target alone, without a full re-read (for benchmarks and tests).
func (s *Session) TargetRechecks() int64 { return s.targetRechecks.Load() }
