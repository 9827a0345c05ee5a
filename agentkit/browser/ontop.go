package browser

import (
	"cmp"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"

	playwright "github.com/mxschmitt/playwright-go"

	"github.com/trapline/trapline/agentkit/act"
	"github.com/trapline/trapline/agentkit/observe"
)

// onTopProbe is the hit test of an observation's elements, in one round trip: for each [ref, x, y,
// width, height] (the element's box as the snapshot printed it), the element under the box's centre
// (the point pointerClick presses; through open shadow roots) is found, and the element is on top when
// that one or one of its ancestors has the same box (rounded as the snapshot rounds it; for a toggle,
// an input or an element of its role: a checkmark drawn over a checkbox often has its box). Otherwise it is
// covered, and the answer maps its ref to what covers it: the nearest positioned (fixed, absolute,
// sticky) ancestor of the element under the point, or that element, as tag#id or tag.class. A centre
// outside the viewport, or a box with no area, is not judged here (pointerClick scrolls and tests
// again at dispatch). A checkbox or radio under its own label's drawing (a styled checkmark laid over
// the input) answers byItsLabel: a person clicks the label, and so does the agent (locate).
const onTopProbe = `(items) => {
  const out = {};
  const round = (r) => Math.round(r.x) + ',' + Math.round(r.y) + ',' + Math.round(r.width) + ',' + Math.round(r.height);
  const name = (el) => {
    let s = el.tagName.toLowerCase();
    if (el.id) s += '#' + el.id;
    else if (typeof el.className === 'string' && el.className.trim()) s += '.' + el.className.trim().split(/\s+/)[0];
    return s.slice(0, 60);
  };
  const cover = (hit) => {
    for (let n = hit; n && n.tagName && n !== document.body && n !== document.documentElement; n = n.parentElement || (n.getRootNode() && n.getRootNode().host)) {
      const p = getComputedStyle(n).position;
      if (p === 'fixed' || p === 'absolute' || p === 'sticky') return name(n);
    }
    return name(hit);
  };
  for (const [ref, x, y, w, h, role] of items) {
    const want = x + ',' + y + ',' + w + ',' + h;
    const toggle = role === 'checkbox' || role === 'radio' || role === 'switch';
    const same = (n) => round(n.getBoundingClientRect()) === want && (!toggle || n.tagName === 'INPUT' || n.getAttribute('role') === role);
    const cx = x + w / 2, cy = y + h / 2;
    if (w <= 0 || h <= 0 || cx < 0 || cy < 0 || cx >= innerWidth || cy >= innerHeight) continue;
    let hit = document.elementFromPoint(cx, cy);
    while (hit && hit.shadowRoot) { const d = hit.shadowRoot.elementFromPoint(cx, cy); if (!d || d === hit) break; hit = d; }
    if (!hit) continue;
    let on = false, byLabel = false;
    for (let n = hit; n && !on && !byLabel; n = n.parentNode || n.host) {
      if (!n.getBoundingClientRect) continue;
      on = same(n);
      const c = n.tagName === 'LABEL' && n.control;
      byLabel = !on && !!c && (c.type === 'checkbox' || c.type === 'radio') && round(c.getBoundingClientRect()) === want;
    }
    if (byLabel) out[ref] = '` + byItsLabel + `';
    else if (!on) out[ref] = cover(hit);
  }
  return JSON.stringify(out);
}`

// byItsLabel is onTopProbe's answer for a toggle whose own label lies over it.
const byItsLabel = "label:"

// markCovered marks obs's covered elements (observe.Node.CoveredBy) by onTopProbe: the
// elements of the page's main frame that have a ref and a box. Elements inside an iframe are left to
// the test at dispatch (their boxes are the iframe's, not the page's). The probe runs in the page's
// world: a page that lies about what is on top misleads only this hint; the click itself is tested
// again (pointerClick) and Playwright's own hit test refuses a click something else would receive.
func (s *Session) markCovered(obs *observe.Observation) error {
	items := coverItems(obs)
	if len(items) == 0 {
		return nil
	}
	res, err := s.page.Evaluate(onTopProbe, items)
	if err != nil {
		return fmt.Errorf("browser: what is on top of %s: %w", obs.URL, err)
	}
	str, ok := res.(string)
	if !ok {
		return fmt.Errorf("browser: what is on top of %s: unexpected answer %T", obs.URL, res)
	}
	var covered map[string]string
	if err := json.Unmarshal([]byte(str), &covered); err != nil {
		return fmt.Errorf("browser: what is on top of %s: %w", obs.URL, err)
	}
	for i := range obs.Nodes {
		n := &obs.Nodes[i]
		by, ok := covered[n.RawRef]
		switch {
		case !ok || n.RawRef == "":
		case by == byItsLabel && (n.Role == "checkbox" || n.Role == "radio" || n.Role == "switch"):
			n.ViaLabel = true
		default:
			n.CoveredBy = cmp.Or(by, "another element")
		}
	}
	return nil
}

// coverItems lists [ref, x, y, width, height, role] of the elements of obs that have a ref and a box and sit
// in no iframe.
func coverItems(obs *observe.Observation) [][]any {
	inFrame := make([]bool, len(obs.Nodes))
	var items [][]any
	for i, n := range obs.Nodes {
		if n.Parent >= 0 {
			inFrame[i] = inFrame[n.Parent] || obs.Nodes[n.Parent].Role == "iframe"
		}
		if n.RawRef == "" || n.Box[2] <= 0 || n.Box[3] <= 0 || inFrame[i] || n.Role == "iframe" {
			continue
		}
		role := n.Role
		if n.ViaLabel {
			role = "" // the ref names the label or wrapper around a hidden toggle: its box is the test
		}
		items = append(items, []any{n.RawRef, n.Box[0], n.Box[1], n.Box[2], n.Box[3], role})
	}
	return items
}

// labelOfToggle says where the visible label of the toggle a ref names (observe.Node.ViaLabel) is,
// as JSON {k, i, id}: for a wrapper around one native checkbox or radio, "self" when the wrapper is
// its label, "inside" with the label's index among the wrapper's labels; for the input itself (its
// label drawn over it), "ancestor" when its one visible label wraps it, "for" with its id when the
// label names it; "none" otherwise.
const labelOfToggle = `el => {
  const shown = (l) => { const r = l.getBoundingClientRect(); return r.width > 0 && r.height > 0; };
  const say = (k, i, id) => JSON.stringify({k, i: i || 0, id: id || ''});
  if (el.tagName === 'INPUT') {
    const ls = [...(el.labels || [])].filter(shown);
    if (ls.length !== 1) return say('none');
    if (ls[0].contains(el)) return say('ancestor');
    return el.id && ls[0].htmlFor === el.id ? say('for', 0, el.id) : say('none');
  }
  const inputs = el.querySelectorAll('input[type=checkbox], input[type=radio]');
  if (inputs.length !== 1) return say('none');
  const input = inputs[0];
  if (el.tagName === 'LABEL' && el.control === input && shown(el)) return say('self');
  const i = [...el.querySelectorAll('label')].findIndex((l) => l.control === input && shown(l));
  return i < 0 ? say('none') : say('inside', i);
}`

// plainID is an element id a CSS attribute selector can name without escaping.
var plainID = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9_-]*$`)

// locate is the locator an action on target works on: the element its ref names, or, for a toggle
// reached through its label (observe.Node.ViaLabel: a visually hidden input, or one its label's
// drawing covers), the input's one visible label, which a person clicks. No such one label is a
// refusal (DispatchFailed): what the click would toggle is unknown.
func (s *Session) locate(target observe.Node) (playwright.Locator, error) {
	loc := s.page.Locator("aria-ref=" + target.RawRef)
	if !target.ViaLabel {
		return loc, nil
	}
	none := &act.Error{Code: act.DispatchFailed, Msg: fmt.Sprintf("the %s %q has no one visible label to click", target.Role, target.Name)}
	res, err := loc.Evaluate(labelOfToggle, nil, pwEvaluateTimeout(s.opts.ActionTimeout))
	if err != nil {
		return nil, &act.Error{Code: act.DispatchFailed, Msg: "the " + target.Role + "'s label could not be read: " + err.Error()}
	}
	var where struct {
		K  string `json:"k"`
		I  int    `json:"i"`
		ID string `json:"id"`
	}
	if str, ok := res.(string); !ok || json.Unmarshal([]byte(str), &where) != nil {
		return nil, none
	}
	switch where.K {
	case "self":
		return loc, nil
	case "inside":
		return loc.Locator("label").Nth(where.I), nil
	case "ancestor":
		return loc.Locator("xpath=ancestor::label[1]"), nil
	case "for":
		if !plainID.MatchString(where.ID) {
			return nil, none
		}
		l := s.page.Locator(`label[for="` + where.ID + `"] >> visible=true`)
		if n, err := l.Count(); err != nil || n != 1 {
			return nil, none
		}
		return l, nil
	}
	return nil, none
}

// undeliveredCode is the code of an action the browser did not deliver: TargetCovered when
// Playwright's own hit test found another element over the target ("... intercepts pointer
// events": a panel, a modal), DispatchFailed for anything else.
func undeliveredCode(err error) act.Code {
	if err != nil && strings.Contains(err.Error(), "intercepts pointer events") {
		return act.TargetCovered
	}
	return act.DispatchFailed
}
