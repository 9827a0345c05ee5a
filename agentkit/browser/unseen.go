package browser

import (
	"encoding/json"
	"fmt"

	playwright "github.com/mxschmitt/playwright-go"

	"github.com/trapline/trapline/agentkit/evidence"
	"github.com/trapline/trapline/agentkit/policy"
)

// unseenBinding is the page-visible function the unseen-channel guard reports through, with one JSON
// string {kind, url} (see capabilityBinding: a page can call it too, and at worst fakes a refusal,
// never hides one).
const unseenBinding = "__traplineUnseen"

// Kinds the unseen-channel guard reports.
const (
	unseenSpeculation = "speculation_rules"
	unseenLeaveBeacon = "leave_beacon"
)

// unseenGuard closes, inside the page, the channels whose requests ctx.Route never sees (measured by
// the bypass suite, docs/request-rules.md):
//
//   - speculation rules: every <script type="speculationrules"> (parsed or inserted by script) is
//     turned into an inert script and taken out of the document before Chromium acts on it (a
//     MutationObserver's callback runs before the microtask in which Chromium updates its
//     speculation candidates; a rule set already processed is dropped, and its prerenders and
//     prefetches with it, when its element leaves the document); each URL it named is reported.
//   - requests that outlive the page: navigator.sendBeacon and fetch(..., {keepalive: true}) called
//     while the page is being left (pagehide, unload, beforeunload, freeze, or the document hidden)
//     are refused (sendBeacon returns false, fetch rejects), because Chromium sends them after the
//     document is gone, where no route and no request event exists. While the page is shown they
//     go out as usual, through the route gate.
//
// It runs before any page script, in every frame, and its wrappers are locked (not writable, not
// configurable). It is a guard of the page's own JavaScript, so a page that takes a pristine
// sendBeacon from a frame the init script has not reached yet, or speculation rules sent in a
// Speculation-Rules response header, gets past it: the proxy stays the boundary for those.
const unseenGuard = `(() => {
  // A report made while the page is left may never reach the binding (the old document's DevTools
  // agents are gone by then): it is also kept in sessionStorage and sent again by the next document
  // of the same origin; the id lets the session count it once.
  const KEY = '` + unseenBinding + `';
  const send = (r) => { try { window.` + unseenBinding + `(JSON.stringify(r)); } catch (e) {} };
  const report = (kind, url) => {
    const r = {kind, url: String(url), id: Date.now().toString(36) + Math.random().toString(36).slice(2)};
    send(r);
    try { const q = JSON.parse(sessionStorage.getItem(KEY) || '[]'); q.push(r); sessionStorage.setItem(KEY, JSON.stringify(q.slice(-32))); } catch (e) {}
  };
  try {
    const q = JSON.parse(sessionStorage.getItem(KEY) || '[]');
    sessionStorage.removeItem(KEY);
    for (const r of q) send(r);
  } catch (e) {}
  const abs = (u) => { try { return new URL(String(u), document.baseURI).href; } catch (e) { return String(u); } };
  const lock = (obj, name, value) => { try { Object.defineProperty(obj, name, {value, writable: false, configurable: false}); } catch (e) {} };

  // Speculation rules.
  const isRules = (n) => n && n.nodeName === 'SCRIPT' && String(n.getAttribute('type') || '').trim().toLowerCase() === 'speculationrules';
  const urlsOf = (rules) => {
    const out = [];
    try {
      for (const kind of ['prerender', 'prefetch', 'prefetch_with_subresources']) {
        for (const r of (Array.isArray(rules[kind]) ? rules[kind] : [])) {
          for (const u of (Array.isArray(r.urls) ? r.urls : [])) out.push(abs(u));
          if (r.where || r.source === 'document') out.push(document.baseURI);
        }
      }
    } catch (e) { out.push(document.baseURI); }
    return out.length ? out : [document.baseURI];
  };
  // The element is taken out at once; what it named is reported once its text is whole. The HTML
  // parser inserts a script element before its text, and under load the observer can run in between
  // (the text then is empty or cut, and the report named the page instead of the rules' URLs): the
  // parser keeps adding the text to the element it opened even once it is out of the document, so the
  // element is watched until its text parses, or until the parser is done with the document
  // (DOMContentLoaded), when what is left is reported as it is, or as the page's own URL.
  const neutralise = (s) => {
    s.setAttribute('type', 'application/x-trapline-refused-speculationrules');
    s.remove();
    let done = false, mo = null;
    const attempt = (last) => {
      if (done) return;
      let rules;
      try { rules = JSON.parse(s.textContent); } catch (e) { if (!last) return; rules = null; }
      done = true;
      if (mo) mo.disconnect();
      for (const u of (rules === null ? [document.baseURI] : urlsOf(rules))) report('` + unseenSpeculation + `', u);
    };
    const parsing = document.readyState === 'loading';
    attempt(!parsing);
    if (done) return;
    mo = new MutationObserver(() => attempt(false));
    mo.observe(s, {childList: true, characterData: true, subtree: true});
    document.addEventListener('DOMContentLoaded', () => attempt(true), {once: true, capture: true});
  };
  const scan = (n) => {
    if (isRules(n)) { neutralise(n); return; }
    if (n && n.querySelectorAll) for (const s of n.querySelectorAll('script')) if (isRules(s)) neutralise(s);
  };
  new MutationObserver((records) => {
    for (const r of records) for (const n of r.addedNodes) scan(n);
  }).observe(document, {childList: true, subtree: true});

  // Requests that outlive the page.
  let leaving = false;
  const leaveEvents = ['pagehide', 'unload', 'beforeunload', 'freeze'];
  for (const t of leaveEvents) window.addEventListener(t, () => { leaving = true; }, true);
  window.addEventListener('pageshow', () => { leaving = false; }, true);
  window.addEventListener('resume', () => { leaving = false; }, true);
  window.addEventListener('visibilitychange', () => { leaving = document.visibilityState === 'hidden'; }, true);
  const isLeaving = () => leaving || document.visibilityState === 'hidden' ||
    (window.event && (leaveEvents.includes(window.event.type) || window.event.type === 'visibilitychange'));
  if (window.Navigator && Navigator.prototype.sendBeacon) {
    const beacon = Navigator.prototype.sendBeacon;
    lock(Navigator.prototype, 'sendBeacon', function sendBeacon(url, data) {
      if (isLeaving()) { report('` + unseenLeaveBeacon + `', abs(url)); return false; }
      return beacon.call(this, url, data);
    });
  }
  if (typeof window.fetch === 'function') {
    const fetch = window.fetch;
    lock(window, 'fetch', function (input, init) {
      const keepalive = (init && init.keepalive) || (input instanceof Request && input.keepalive);
      if (keepalive && isLeaving()) {
        report('` + unseenLeaveBeacon + `', abs(input instanceof Request ? input.url : input));
        return Promise.reject(new TypeError('trapline: a keepalive request while the page is left is refused'));
      }
      return fetch.apply(this, arguments);
    });
  }
})();`

// installUnseenGuard adds unseenGuard to every document of the context. Its reports go through a
// raw CDP binding on each page (watchUnseen), not Playwright's ExposeBinding: a beacon is refused in
// pagehide, and Playwright drops a binding call whose execution context is destroyed by the time it
// handles it (measured: the refusal of the pagehide beacon was never reported that way), while the
// CDP event is sent by the renderer at the call.
func (s *Session) installUnseenGuard() error {
	if err := s.ctx.AddInitScript(playwright.Script{Content: playwright.String(unseenGuard)}); err != nil {
		return fmt.Errorf("browser: add unseen-channel guard: %w", err)
	}
	return nil
}

// watchUnseen binds unseenBinding on page (every context of it, present and future) and records
// each refusal as a route-gate violation with policy.DecideUnseen's rule. A report that cannot be read is recorded too, never dropped.
func (s *Session) watchUnseen(page playwright.Page) error {
	cdp, err := s.ctx.NewCDPSession(page)
	if err != nil {
		return fmt.Errorf("browser: unseen-channel guard: CDP session: %w", err)
	}
	cdp.On("Runtime.bindingCalled", func(ev map[string]any) {
		if ev["name"] != unseenBinding {
			return
		}
		payload, _ := ev["payload"].(string)
		var r struct{ Kind, URL, ID string }
		if err := json.Unmarshal([]byte(payload), &r); err != nil {
			r.Kind = "unreadable report: " + err.Error()
		}
		if _, dup := s.unseenReports.LoadOrStore(r.ID, true); dup && r.ID != "" {
			return // sent again by the next document: counted once
		}
		s.refuse(unseenViolation(s.opts.Policy, r.Kind, r.URL, s.pageURL()), nil)
	})
	// Chromium sends Runtime.bindingCalled only to a session with the Runtime domain enabled.
	if _, err := cdp.Send("Runtime.enable", nil); err != nil {
		return fmt.Errorf("browser: unseen-channel guard: enable Runtime: %w", err)
	}
	if _, err := cdp.Send("Runtime.addBinding", map[string]any{"name": unseenBinding}); err != nil {
		return fmt.Errorf("browser: unseen-channel guard: add binding: %w", err)
	}
	return nil
}

// unseenViolation is the violation of one refusal by unseenGuard.
func unseenViolation(pol *policy.Policy, kind, url, page string) evidence.Violation {
	method, what := "GET", "speculation rules (prerender/prefetch) of"
	if kind == unseenLeaveBeacon {
		method, what = "POST", "a beacon or keepalive request sent while the page is left, to"
	} else if kind != unseenSpeculation {
		what = fmt.Sprintf("an unknown unseen channel %q, to", kind)
	}
	v := evidence.Violation{URL: url, Method: method, Page: page, Taken: evidence.TakenBlocked}
	d := pol.DecideUnseen(policy.Request{Method: method, URL: url, Navigation: kind == unseenSpeculation})
	v.Rule = d.Rule
	v.Reason = fmt.Sprintf("refused in the page: %s %s: %s", what, url, d.Reason)
	return v
}
