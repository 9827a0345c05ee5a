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

// pressGuardName is the page-visible guard pointerClick arms before it presses the target and
// disarms after (handlerMarks).
const pressGuardName = "__traplinePressGuard"

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
  const marks = (el) => {
    let m = Math.max(at(window), at(document));
    for (let n = el; n; n = n.parentNode || n.host) m = Math.max(m, at(n));
    return m;
  };
  Object.defineProperty(window, '` + handlerMarksName + `', { value: marks, writable: false, configurable: false });
  // The press guard: armed on a target just before trapline presses it, it reads the target's marks
  // and attributes again at pointerup, mouseup and click (its listeners, added here before any page
  // script, run first on the window) and stops those events, default action included, when what the
  // click runs changed since it was armed, or when the event is not on the target.
  const getAttr = Element.prototype.getAttribute, path = Event.prototype.composedPath;
  const stopNow = Event.prototype.stopImmediatePropagation, prevent = Event.prototype.preventDefault;
  const names = ['onclick', 'onmousedown', 'onmouseup', 'onpointerdown', 'onpointerup', 'onsubmit', 'action', 'method', 'formaction', 'formmethod', 'href', 'target'];
  const attrs = (el) => {
    let s = '';
    for (let n = el; n; n = n.parentNode || n.host) {
      if (!(n instanceof Element)) continue;
      for (const a of names) s += a + '=' + apply(getAttr, n, [a]) + '\n';
    }
    return s;
  };
  const state = (el) => marks(el) + '\n' + attrs(el);
  let armed = null, blocked = '';
  const guard = (e) => {
    if (!armed) return;
    if (!blocked && !apply(path, e, []).includes(armed.el)) blocked = 'the ' + e.type + ' is not on the target';
    else if (!blocked && state(armed.el) !== armed.want) blocked = 'what the click runs changed before the ' + e.type;
    if (blocked) { apply(stopNow, e, []); apply(prevent, e, []); }
    if (e.type === 'click') armed = null;
  };
  for (const t of ['pointerup', 'mouseup', 'click']) apply(add, window, [t, guard, true]);
  Object.defineProperty(window, '` + pressGuardName + `', { value: Object.freeze({ arm: (el) => { armed = { el, want: state(el) }; blocked = ''; },
    disarm: () => { const b = blocked; armed = null; blocked = ''; return b; } }), writable: false, configurable: false });
})();`

// pointerProbe reads, on the target, what a click on it will do: its facts (factsScript: the visible
// text, the form it submits and how), the on* attributes of the click family on its path, the
// handler generation (handlerMarks; -1 where the script is missing), and whether the element under
// the point the pointer was put on (x, y in the frame's viewport; the centre of its box when x is
// NaN) is the target or inside it; also whether the pointer is on it (:hover) and its box's size.
// With arm it then arms the page's press guard on the target (handlerMarks), in the same call: the
// reading after the pointer arrived and the arming are one round trip, and a reading that differs
// from the one before disarms it (pointerClick).
const pointerProbe = `(el, {x, y, arm}) => {
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
  let armed = false;
  if (arm) {
    const g = el.ownerDocument.defaultView.` + pressGuardName + `;
    if (!g) throw new Error("no press guard in the target's frame");
    g.arm(el);
    armed = true;
  }
  return JSON.stringify({facts, attrs: attrs.join('\n'), handlers: typeof marks === 'function' ? marks(el) : -1, x: px, y: py, inside,
    hovered: el.matches(':hover'), w: r.width, h: r.height, armed});
}`

// pointerState is one pointerProbe reading.
type pointerState struct {
	Facts    string  `json:"facts"`
	Attrs    string  `json:"attrs"`
	Handlers int64   `json:"handlers"`
	X        float64 `json:"x"`
	Y        float64 `json:"y"`
	Inside   bool    `json:"inside"`
	Hovered  bool    `json:"hovered"`
	W        float64 `json:"w"`
	H        float64 `json:"h"`
	Armed    bool    `json:"armed"`
}

// probePointer reads pointerProbe on loc at (x, y), or at the centre of its box when x is NaN; with
// arm it arms the press guard too.
func (s *Session) probePointer(loc playwright.Locator, x, y float64, arm bool) (pointerState, error) {
	var st pointerState
	res, err := loc.Evaluate(pointerProbe, map[string]any{"x": x, "y": y, "arm": arm}, pwEvaluateTimeout(s.opts.ActionTimeout))
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

// pointerClick clicks loc as a person would, in steps, re-reading what the click will do: scrolled
// into view and read (the pointer taken off it first when an earlier hover left it there:
// pointerOff); the pointer put on its centre (hover: pointerenter, pointerover, mouseover fire), read
// again and the page's press guard armed in the same call (handlerMarks); then pressed there by
// Playwright's click (which waits for the navigation a click starts): a handler or form attribute
// that changes when the button goes down, or a press that lands on another element, has its
// pointerup, mouseup and click stopped in the page, default action included. Any change refuses the
// click (act.PointerSwap): the click the fence decided on is not the one that would happen.
func (s *Session) pointerClick(loc playwright.Locator) error {
	to := ms(s.opts.ActionTimeout)
	if err := loc.ScrollIntoViewIfNeeded(playwright.LocatorScrollIntoViewIfNeededOptions{Timeout: to}); err != nil {
		return err
	}
	before, err := s.probePointer(loc, math.NaN(), math.NaN(), false)
	if err != nil {
		return err
	}
	if before.Hovered {
		if _, err := s.pointerOff(loc); err != nil {
			return err
		}
		if before, err = s.probePointer(loc, math.NaN(), math.NaN(), false); err != nil {
			return err
		}
	}
	if !before.Inside {
		// Covered before the pointer came (a banner, a panel): delivery trouble, not a swap.
		return &act.Error{Code: act.TargetCovered, Msg: "another element covers the target's centre: the click would land on it"}
	}
	centre := &playwright.Position{X: before.W / 2, Y: before.H / 2}
	if err := loc.Hover(playwright.LocatorHoverOptions{Timeout: to, Position: centre}); err != nil {
		// Playwright refuses to put the pointer on a target something else covers: when the cover
		// came as the pointer arrived, that is the page swapping the click, not delivery trouble.
		if why, perr := s.stillTheSame(loc, before, "the pointer arrived", false); perr == nil && why != nil {
			return why
		}
		return &act.Error{Code: undeliveredCode(err), Msg: err.Error()}
	}
	if why, err := s.stillTheSame(loc, before, "the pointer arrived", true); err != nil || why != nil {
		return firstErr(why, err, s.disarm(loc), s.pointerAway(loc))
	}
	return s.guardedPress(loc, centre)
}

// pointerAway moves the pointer just left of the target, after a refusal.
func (s *Session) pointerAway(loc playwright.Locator) error {
	box, err := loc.BoundingBox(playwright.LocatorBoundingBoxOptions{Timeout: ms(s.opts.ActionTimeout)})
	if err != nil || box == nil {
		return err
	}
	return s.page.Mouse().Move(box.X-1, box.Y+box.Height/2)
}

// disarm disarms the press guard armed on loc when no press follows.
func (s *Session) disarm(loc playwright.Locator) error {
	_, err := loc.Evaluate(`el => el.ownerDocument.defaultView.`+pressGuardName+`.disarm()`, nil, pwEvaluateTimeout(s.opts.ActionTimeout))
	return err
}

// pointerOff takes the pointer off the target when an earlier hover or refused click left it there
// (the target matches :hover), so the reading before is the page without the pointer on it: a swap
// made on pointerenter and undone on pointerleave is made again, and seen, when the pointer arrives.
// The pointer goes just left of the target, so a row it sits in stays under the pointer (a control a
// row shows only under the pointer stays shown); if the target is gone then, the pointer goes back
// on it and the reading before is the page as it is. It returns the target's box.
func (s *Session) pointerOff(loc playwright.Locator) (*playwright.Rect, error) {
	to := ms(s.opts.ActionTimeout)
	box, err := loc.BoundingBox(playwright.LocatorBoundingBoxOptions{Timeout: to})
	if err != nil || box == nil {
		return nil, fmt.Errorf("the target has no box to put the pointer on: %v", err)
	}
	on, err := loc.Evaluate(`el => el.matches(':hover')`, nil, pwEvaluateTimeout(s.opts.ActionTimeout))
	if err != nil || on != true {
		return box, err
	}
	if err := s.page.Mouse().Move(box.X-1, box.Y+box.Height/2); err != nil {
		return nil, err
	}
	if after, err := loc.BoundingBox(playwright.LocatorBoundingBoxOptions{Timeout: to}); err == nil && after != nil {
		return after, nil
	}
	if err := loc.Hover(playwright.LocatorHoverOptions{Timeout: to}); err != nil {
		return nil, err
	}
	return loc.BoundingBox(playwright.LocatorBoundingBoxOptions{Timeout: to})
}

// guardedPress presses loc at centre with the page's press guard armed (stillTheSame armed it), and
// returns act.PointerSwap when the guard stopped the press.
func (s *Session) guardedPress(loc playwright.Locator, centre *playwright.Position) error {
	if err := loc.Click(playwright.LocatorClickOptions{Timeout: ms(s.opts.ActionTimeout), Position: centre}); err != nil {
		return err
	}
	res, err := loc.Evaluate(`el => el.ownerDocument.defaultView.`+pressGuardName+`.disarm()`, nil, pwEvaluateTimeout(s.opts.ActionTimeout))
	if err != nil {
		return nil // the click navigated away (the target is gone with its page): it was not stopped
	}
	if why, _ := res.(string); why != "" {
		return &act.Error{Code: act.PointerSwap, Msg: fmt.Sprintf("when the button went down, %s: the click decided on is not the one that would happen", why)}
	}
	return nil
}

// stillTheSame re-reads loc at the point before was read at, arming the press guard in the same call
// when arm; a change is a refusal (act.PointerSwap).
func (s *Session) stillTheSame(loc playwright.Locator, before pointerState, when string, arm bool) (refusal, err error) {
	now, err := s.probePointer(loc, before.X, before.Y, arm)
	if err != nil {
		return nil, err
	}
	if arm && !now.Armed {
		return nil, fmt.Errorf("the press guard was not armed")
	}
	if what := now.changedSince(before); what != "" {
		return &act.Error{Code: act.PointerSwap, Msg: fmt.Sprintf("when %s, %s: the click decided on is not the one that would happen", when, what)}, nil
	}
	return nil, nil
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
