package browser

import (
	"cmp"
	"encoding/json"
	"fmt"
	"strings"

	playwright "github.com/mxschmitt/playwright-go"

	"github.com/trapline/trapline/agentkit/act"
	"github.com/trapline/trapline/agentkit/observe"
)

// onTopProbe is the hit test of an observation's elements, in one round trip: for each [ref, x, y,
// width, height] (the element's box as the snapshot printed it), the element under the box's centre
// (the point pointerClick presses; through open shadow roots) is found, and the element is on top when
// that one or one of its ancestors has the same box (rounded as the snapshot rounds it). Otherwise it is
// covered, and the answer maps its ref to what covers it: the nearest positioned (fixed, absolute,
// sticky) ancestor of the element under the point, or that element, as tag#id or tag.class. A centre
// outside the viewport, or a box with no area, is not judged here (pointerClick scrolls and tests
// again at dispatch).
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
  for (const [ref, x, y, w, h] of items) {
    const cx = x + w / 2, cy = y + h / 2;
    if (w <= 0 || h <= 0 || cx < 0 || cy < 0 || cx >= innerWidth || cy >= innerHeight) continue;
    let hit = document.elementFromPoint(cx, cy);
    while (hit && hit.shadowRoot) { const d = hit.shadowRoot.elementFromPoint(cx, cy); if (!d || d === hit) break; hit = d; }
    if (!hit) continue;
    const want = x + ',' + y + ',' + w + ',' + h;
    let on = false;
    for (let n = hit; n; n = n.parentNode || n.host) {
      if (n.getBoundingClientRect && round(n.getBoundingClientRect()) === want) { on = true; break; }
    }
    if (!on) out[ref] = cover(hit);
  }
  return JSON.stringify(out);
}`

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
		if by, ok := covered[obs.Nodes[i].RawRef]; ok && obs.Nodes[i].RawRef != "" {
			obs.Nodes[i].CoveredBy = cmp.Or(by, "another element")
		}
	}
	return nil
}

// coverItems lists [ref, x, y, width, height] of the elements of obs that have a ref and a box and sit
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
		items = append(items, []any{n.RawRef, n.Box[0], n.Box[1], n.Box[2], n.Box[3]})
	}
	return items
}

// labelOfToggle finds, in the element a hidden toggle's ref names (observe.Node.ViaLabel), the one
// native checkbox or radio inside it, and answers -1 when that element is the input's label, the
// index of the input's visible label among the element's labels, or -2 when there is no such one
// input or no visible label of it.
const labelOfToggle = `el => {
  const inputs = el.querySelectorAll('input[type=checkbox], input[type=radio]');
  if (inputs.length !== 1) return -2;
  const input = inputs[0];
  const shown = (l) => { const r = l.getBoundingClientRect(); return r.width > 0 && r.height > 0; };
  if (el.tagName === 'LABEL' && el.control === input && shown(el)) return -1;
  const labels = [...el.querySelectorAll('label')];
  const i = labels.findIndex((l) => l.control === input && shown(l));
  return i < 0 ? -2 : i;
}`

// locate is the locator an action on target works on: the element its ref names, or, for a visually
// hidden toggle reached through its label (observe.Node.ViaLabel), the input's visible label, which a
// person clicks. A wrapper with no single input or no visible label of it is refused (DispatchFailed):
// what the click would toggle is unknown.
func (s *Session) locate(target observe.Node) (playwright.Locator, error) {
	loc := s.page.Locator("aria-ref=" + target.RawRef)
	if !target.ViaLabel {
		return loc, nil
	}
	res, err := loc.Evaluate(labelOfToggle, nil, pwEvaluateTimeout(s.opts.ActionTimeout))
	if err != nil {
		return nil, &act.Error{Code: act.DispatchFailed, Msg: "the hidden " + target.Role + "'s label could not be read: " + err.Error()}
	}
	i, ok := res.(int)
	if f, isFloat := res.(float64); isFloat {
		i, ok = int(f), true
	}
	switch {
	case !ok || i < -1:
		return nil, &act.Error{Code: act.DispatchFailed, Msg: fmt.Sprintf("the hidden %s %q has no one visible label to click", target.Role, target.Name)}
	case i == -1:
		return loc, nil
	}
	return loc.Locator("label").Nth(i), nil
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
