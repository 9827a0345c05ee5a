package browser

import (
	"encoding/json"
	"fmt"
	"math"

	playwright "github.com/mxschmitt/playwright-go"

	"github.com/trapline/trapline/agentkit/act"
)

// handlerMarksName is the page-visible function that says, for an element, the latest change of the
// click-family handlers of it, its ancestors (across shadow roots), its document and its window.
const handlerMarksName = "__traplineHandlerMarks"

// handlerMarks counts, from before any page script runs, every change a script makes to what a click
// will run: addEventListener and removeEventListener of a click-family event (click, mousedown,
// mouseup, pointerdown, pointerup, auxclick, dblclick, submit, touchstart, touchend) and a write to an
// on* property of one (onclick, onmousedown, ...), each marking the object it was made on with a new
// generation. handlerMarksName(el) is the highest generation on el's path to the window: a change
// made while the pointer arrived (a pointerenter handler that swaps the click's handler) raises it.
// The wrappers take their tools (Reflect.apply, WeakMap's methods, Set's has) before the page runs,
// so a page that replaces those cannot blind them; a page that adds a listener through a function of
// another realm (a fresh iframe's EventTarget), or that keeps one listener whose behaviour reads a
// variable it changes, is not seen: what that click then requests is still judged by the route gate
// and the proxy (docs/security.md).
const handlerMarks = `(() => {
  if (Object.getOwnPropertyDescriptor(window, '` + handlerMarksName + `')) return;
  const apply = Reflect.apply, wmGet = WeakMap.prototype.get, wmSet = WeakMap.prototype.set;
  const setHas = Set.prototype.has, lower = String.prototype.toLowerCase;
  const gens = new WeakMap();
  let gen = 0;
  const events = new Set(['click', 'mousedown', 'mouseup', 'pointerdown', 'pointerup', 'auxclick', 'dblclick', 'submit', 'touchstart', 'touchend']);
  const watched = (type) => apply(setHas, events, [apply(lower, String(type), [])]);
  const mark = (t) => { if (t !== null && (typeof t === 'object' || typeof t === 'function')) { gen++; apply(wmSet, gens, [t, gen]); } };
  const proto = EventTarget.prototype, add = proto.addEventListener, remove = proto.removeEventListener;
  proto.addEventListener = function (type, ...rest) { if (watched(type)) mark(this); return apply(add, this, [type, ...rest]); };
  proto.removeEventListener = function (type, ...rest) { if (watched(type)) mark(this); return apply(remove, this, [type, ...rest]); };
  const protos = [window.HTMLElement && HTMLElement.prototype, window.SVGElement && SVGElement.prototype, window.Document && Document.prototype, window];
  for (const p of protos) {
    if (!p) continue;
    for (const ev of events) {
      const d = Object.getOwnPropertyDescriptor(p, 'on' + ev);
      if (!d || !d.set || !d.configurable) continue;
      const set = d.set;
      Object.defineProperty(p, 'on' + ev, { ...d, set(v) { mark(this); return apply(set, this, [v]); } });
    }
  }
  const at = (t) => apply(wmGet, gens, [t]) || 0;
  Object.defineProperty(window, '` + handlerMarksName + `', { value: (el) => {
    let m = Math.max(at(window), at(document));
    for (let n = el; n; n = n.parentNode || n.host) m = Math.max(m, at(n));
    return m;
  }, writable: false, configurable: false });
})();`

// pointerProbe reads, on the target, what a click on it will do: its facts (factsScript: the visible
// text, the form it submits and how), the on* attributes of the click family on its path, the
// handler generation (handlerMarks; -1 where the script is missing), and whether the element under
// the point the pointer was put on (x, y in the frame's viewport; the centre of its box when x is
// NaN) is the target or inside it.
const pointerProbe = `(el, {x, y}) => {
  const facts = (` + factsScript + `)(el, {kind: 'click', value: '', key: ''});
  const r = el.getBoundingClientRect();
  const px = Number.isNaN(x) ? r.x + r.width / 2 : x, py = Number.isNaN(y) ? r.y + r.height / 2 : y;
  let hit = document.elementFromPoint(px, py);
  while (hit && hit.shadowRoot) { const d = hit.shadowRoot.elementFromPoint(px, py); if (!d || d === hit) break; hit = d; }
  let inside = false;
  for (let n = hit; n; n = n.parentNode || n.host) { if (n === el) { inside = true; break; } }
  const attrs = [];
  for (let n = el; n && n.getAttribute; n = n.parentNode || n.host) {
    for (const a of ['onclick', 'onmousedown', 'onmouseup', 'onpointerdown', 'onpointerup', 'onsubmit', 'action', 'method', 'formaction', 'formmethod', 'href', 'target']) {
      const v = n.getAttribute(a);
      if (v !== null) attrs.push(a + '=' + v);
    }
  }
  const marks = window.` + handlerMarksName + `;
  return JSON.stringify({facts, attrs: attrs.join('\n'), handlers: typeof marks === 'function' ? marks(el) : -1, x: px, y: py, inside});
}`

// pointerState is one pointerProbe reading.
type pointerState struct {
	Facts    string  `json:"facts"`
	Attrs    string  `json:"attrs"`
	Handlers int64   `json:"handlers"`
	X        float64 `json:"x"`
	Y        float64 `json:"y"`
	Inside   bool    `json:"inside"`
}

// probePointer reads pointerProbe on loc at (x, y), or at the centre of its box when x is NaN.
func (s *Session) probePointer(loc playwright.Locator, x, y float64) (pointerState, error) {
	var st pointerState
	res, err := loc.Evaluate(pointerProbe, map[string]any{"x": x, "y": y}, pwEvaluateTimeout(s.opts.ActionTimeout))
	if err != nil {
		return st, err
	}
	str, ok := res.(string)
	if !ok {
		return st, fmt.Errorf("unexpected answer %T", res)
	}
	return st, json.Unmarshal([]byte(str), &st)
}

// changedSince says what of what the click will do differs from before (the reading taken before the
// pointer moved), "" when nothing does.
func (now pointerState) changedSince(before pointerState) string {
	switch {
	case !now.Inside:
		return "another element is under the pointer"
	case now.Facts != before.Facts:
		return "what the click submits or says changed"
	case now.Attrs != before.Attrs:
		return "the handler or form attributes on its path changed"
	case now.Handlers != before.Handlers:
		return "a script changed the click handlers on its path"
	}
	return ""
}

// pointerClick clicks loc as a person would, in steps, re-reading what the click will do at each:
// scrolled into view, the pointer moved off it, and read; the pointer put on its centre (hover: pointerenter, pointerover,
// mouseover fire) and read again; the button pressed (mousedown, pointerdown) and read again; then
// released. A page that swaps the click's handler, its form's action or the element under the pointer
// when the pointer arrives or the button goes down is refused (act.PointerSwap): the click the fence
// decided on is not the one that would happen. After a refused press the release is swallowed by a
// one-shot capturing listener, so no click is delivered (see blockRelease).
func (s *Session) pointerClick(loc playwright.Locator) error {
	to := ms(s.opts.ActionTimeout)
	if err := loc.ScrollIntoViewIfNeeded(playwright.LocatorScrollIntoViewIfNeededOptions{Timeout: to}); err != nil {
		return err
	}
	// The pointer leaves whatever it was on (an earlier hover or refused click), so the reading
	// before is the page without the pointer on the target: a swap made on pointerenter and undone
	// on pointerleave is made again, and seen, when the pointer arrives.
	mouse := s.page.Mouse()
	if err := mouse.Move(0, 0); err != nil {
		return err
	}
	before, err := s.probePointer(loc, math.NaN(), math.NaN())
	if err != nil {
		return err
	}
	box, err := loc.BoundingBox(playwright.LocatorBoundingBoxOptions{Timeout: to})
	if err != nil || box == nil {
		return fmt.Errorf("the target has no box to put the pointer on: %v", err)
	}
	if err := loc.Hover(playwright.LocatorHoverOptions{Timeout: to, Position: &playwright.Position{X: box.Width / 2, Y: box.Height / 2}}); err != nil {
		// Playwright refuses to put the pointer on a target something else covers: when the cover
		// came as the pointer arrived, that is the page swapping the click, not delivery trouble.
		if why, perr := s.stillTheSame(loc, before, "the pointer arrived"); perr == nil && why != nil {
			return why
		}
		return &act.Error{Code: act.DispatchFailed, Msg: err.Error()}
	}
	if why, err := s.stillTheSame(loc, before, "the pointer arrived"); err != nil || why != nil {
		return firstErr(why, err, mouse.Move(0, 0))
	}
	if err := mouse.Down(); err != nil {
		return err
	}
	if why, err := s.stillTheSame(loc, before, "the button went down"); err != nil || why != nil {
		return firstErr(why, blockRelease(loc, mouse), err, mouse.Move(0, 0))
	}
	return mouse.Up()
}

// stillTheSame re-reads loc at the point before was read at; a change is a refusal (act.PointerSwap).
func (s *Session) stillTheSame(loc playwright.Locator, before pointerState, when string) (refusal, err error) {
	now, err := s.probePointer(loc, before.X, before.Y)
	if err != nil {
		return nil, err
	}
	if what := now.changedSince(before); what != "" {
		return &act.Error{Code: act.PointerSwap, Msg: fmt.Sprintf("when %s, %s: the click decided on is not the one that would happen", when, what)}, nil
	}
	return nil, nil
}

// blockRelease releases a pressed button without delivering the click: capturing listeners on the
// target's window, added just before, stop the release's pointerup, mouseup, click and auxclick and
// prevent their default action (a form's submission); they are taken off once the release is done. A
// capturing listener the page put on its window before them still runs first (docs/security.md).
func blockRelease(loc playwright.Locator, mouse playwright.Mouse) error {
	const evs = `['pointerup', 'mouseup', 'click', 'auxclick']`
	if _, err := loc.Evaluate(`el => {
  const w = el.ownerDocument.defaultView, evs = `+evs+`;
  const stop = (e) => { e.stopImmediatePropagation(); e.preventDefault(); };
  w.__traplineBlockRelease = stop;
  for (const t of evs) w.addEventListener(t, stop, true);
}`, nil); err != nil {
		return err
	}
	upErr := mouse.Up()
	_, err := loc.Evaluate(`el => {
  const w = el.ownerDocument.defaultView, evs = `+evs+`;
  for (const t of evs) w.removeEventListener(t, w.__traplineBlockRelease, true);
  delete w.__traplineBlockRelease;
}`, nil)
	return firstErr(upErr, err)
}

// firstErr is the first non-nil error of errs.
func firstErr(errs ...error) error {
	for _, e := range errs {
		if e != nil {
			return e
		}
	}
	return nil
}

// installHandlerMarks adds handlerMarks to every frame of every page of the session.
func (s *Session) installHandlerMarks() error {
	if err := s.ctx.AddInitScript(playwright.Script{Content: playwright.String(handlerMarks)}); err != nil {
		return fmt.Errorf("browser: install handler marks: %w", err)
	}
	return nil
}
