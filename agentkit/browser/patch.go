package browser

import (
	"encoding/json"
	"fmt"
	"strings"

	playwright "github.com/mxschmitt/playwright-go"

	"github.com/trapline/trapline/agentkit/observe"
)

// changedSinceName is the page-visible, read-only function that says where the page changed since
// a value of the change counter (patchLog).
const changedSinceName = "__traplineChangedSince"

// patchLog is the part of the change counter's closure (changes.go) that remembers where each
// counted change happened, so an observation can be patched where the page changed instead of read
// whole (Session.patch). Every increment of the counter either notes its place (a mutation record's
// target, the element a form value was written to, the target of an input, change, focus or load
// event) or spoils every patch across it (a change it cannot place: a shadow root, an animation or
// transition, a popover or details toggle, a window focus change, a reset, a hash change, any write
// to the page's stylesheets through the CSSOM, a style sheet or frame added or removed, more changes
// than the log keeps).
//
// changedSinceName(k) answers, as JSON, the counter now (n), and either why no patch can be trusted
// (why) or the CSS paths of the elements to re-read (paths): for each change after k, the nearest
// element with a known role (rootRoles) above every ancestor whose line can take its name from its
// content (a row, a cell, a button, a link, a heading). It refuses (why) whenever the rest of the
// page could show the change too: a change outside the body, in a shadow root, inside svg, a label,
// a legend, a caption, an option or any element with an explicit role; an ancestor with a pointer
// cursor; a page whose elements name or own others (aria-labelledby, label for, aria-owns, ...), has
// radio buttons (checking one unchecks another without an event), popovers or dialogs; a stylesheet
// it cannot read, or whose selectors read state or siblings (any pseudo-class but :link, :visited
// and :focus; ~ and +), that uses counters or content-visibility, or has rules of a kind it does not
// know. The page's own functions cannot blind it: its tools are taken before any page script runs.
const patchLog = `
  const desc = Object.getOwnPropertyDescriptor, getter = (p, k) => { const d = p && desc(p, k); return d && d.get; };
  const mapSet = Map.prototype.set, mapClear = Map.prototype.clear, mapEach = Map.prototype.forEach, mapSize = getter(Map.prototype, 'size'), mapHas = Map.prototype.has;
  const rxTest = RegExp.prototype.test, strReplace = String.prototype.replace, stringify = JSON.stringify;
  const typeOf = getter(Node.prototype, 'nodeType'), parentOf = getter(Node.prototype, 'parentNode'), parentElOf = getter(Node.prototype, 'parentElement');
  const connectedOf = getter(Node.prototype, 'isConnected'), rootOf = Node.prototype.getRootNode, containsOf = Node.prototype.contains;
  const tagOf = getter(Element.prototype, 'tagName'), nsOf = getter(Element.prototype, 'namespaceURI'), hasAttr = Element.prototype.hasAttribute;
  const prevOf = getter(Element.prototype, 'previousElementSibling'), elQuery = Element.prototype.querySelector, docQuery = Document.prototype.querySelector;
  const relatedOf = getter(FocusEvent.prototype, 'relatedTarget'), offsetOf = getter(HTMLElement.prototype, 'offsetWidth');
  const activeOf = getter(Document.prototype, 'activeElement'), docElOf = getter(Document.prototype, 'documentElement');
  const bodyOf = getter(Document.prototype, 'body'), sheetsOf = getter(Document.prototype, 'styleSheets'), adoptedOf = getter(Document.prototype, 'adoptedStyleSheets');
  const styleOf = window.getComputedStyle, propOf = CSSStyleDeclaration.prototype.getPropertyValue;
  const recType = getter(MutationRecord.prototype, 'type'), recTarget = getter(MutationRecord.prototype, 'target');
  const recAdded = getter(MutationRecord.prototype, 'addedNodes'), recRemoved = getter(MutationRecord.prototype, 'removedNodes');
  const listLen = getter(NodeList.prototype, 'length'), listItem = NodeList.prototype.item, pathOfEvent = Event.prototype.composedPath;
  const sheetList = getter(StyleSheetList.prototype, 'length'), sheetItem = StyleSheetList.prototype.item;
  const ruleLen = getter(CSSRuleList.prototype, 'length'), ruleItem = CSSRuleList.prototype.item;
  const cssRulesOf = getter(CSSStyleSheet.prototype, 'cssRules'), ruleType = getter(CSSRule.prototype, 'type'), ruleText = getter(CSSRule.prototype, 'cssText');
  const selectorOf = getter(CSSStyleRule.prototype, 'selectorText'), nestedOf = getter(CSSStyleRule.prototype, 'cssRules');
  const groupRulesOf = getter(CSSGroupingRule.prototype, 'cssRules'), importOf = getter(CSSImportRule.prototype, 'styleSheet');
  const XHTML = 'http://www.w3.org/1999/xhtml';
  const log = new Map();
  let seq = 0, spoiledAt = -1, spoiledWhy = '', cssWhy = null;
  const spoil = (why) => { spoiledAt = n; spoiledWhy = why; cssWhy = null; };
  const note = (node) => {
    if (apply(mapSize, log, []) >= 4096) { apply(mapClear, log, []); spoil('more changes than the log keeps'); return; }
    apply(mapSet, log, [++seq, { n, node }]);
  };
  const isElement = (x) => x !== null && typeof x === 'object' && apply(typeOf, x, []) === 1;
  const framing = (x) => {
    if (!isElement(x)) return false;
    const t = apply(tagOf, x, []);
    return t === 'STYLE' || t === 'LINK' || t === 'IFRAME' || t === 'FRAME' || t === 'OBJECT' || t === 'EMBED' || t === 'SLOT' || t === 'TEMPLATE' ||
      apply(elQuery, x, ['style,link,iframe,frame,object,embed,slot,template']) !== null;
  };
  const framingIn = (list) => { for (let i = 0; i < apply(listLen, list, []); i++) if (framing(apply(listItem, list, [i]))) return true; return false; };
  const record = (r) => {
    const t = apply(recTarget, r, []);
    if (apply(recType, r, []) === 'childList' && (framingIn(apply(recAdded, r, [])) || framingIn(apply(recRemoved, r, [])))) { spoil('a style sheet or frame added or removed'); return; }
    note(t);
  };
  const noteEvent = (e) => {
    const p = apply(pathOfEvent, e, []);
    const t = p.length ? p[0] : null;
    if (isElement(t)) note(t); else spoil('a ' + e.type + ' of the window or the document');
  };
  // The element the focus events last put the focus on (null: none). Focus coming to the page from
  // no element, or leaving to none (a blur), moves the body's [active], which no patch re-reads; so
  // does a focus the browser moved without an event (the focused element removed or hidden): the
  // answer compares the element focused now with this one, after a layout.
  let lastFocused = null;
  const noteFocus = (e) => {
    const p = apply(pathOfEvent, e, []);
    const t = p.length ? p[0] : null;
    if (!isElement(t)) { spoil('a ' + e.type + ' of the document'); return; }
    const from = apply(relatedOf, e, []);
    if (from === null) spoil('the focus came to the page or left it');
    if (e.type === 'focusin') lastFocused = t; else if (from === null) lastFocused = null;
    note(t);
  };
  const focusMoved = () => {
    const body = apply(bodyOf, document, []);
    if (body) apply(offsetOf, body, []);
    let a = apply(activeOf, document, []);
    if (a === body || a === apply(docElOf, document, [])) a = null;
    if (a !== lastFocused) { spoil('the focus moved without an event'); lastFocused = a; }
  };
  const spoiling = (proto, names, kind) => {
    for (let i = 0; proto && i < names.length; i++) {
      const d = desc(proto, names[i]);
      if (!d || !d.configurable) continue;
      const wrap = (f) => function (...args) { bump(); spoil('a write to the page\'s stylesheets'); return apply(f, this, args); };
      if (kind === 'get' && d.get) Object.defineProperty(proto, names[i], { ...d, get: wrap(d.get) });
      else if (kind === 'set' && d.set) Object.defineProperty(proto, names[i], { ...d, set: wrap(d.set) });
      else if (kind === 'call' && typeof d.value === 'function') Object.defineProperty(proto, names[i], { ...d, value: wrap(d.value) });
    }
  };
  spoiling(window.CSSStyleSheet && CSSStyleSheet.prototype, ['insertRule', 'deleteRule', 'addRule', 'removeRule', 'replace', 'replaceSync'], 'call');
  spoiling(window.CSSStyleSheet && CSSStyleSheet.prototype, ['cssRules', 'rules'], 'get');
  spoiling(window.CSSGroupingRule && CSSGroupingRule.prototype, ['insertRule', 'deleteRule'], 'call');
  spoiling(window.CSSStyleRule && CSSStyleRule.prototype, ['style', 'cssRules'], 'get');
  spoiling(window.CSSStyleRule && CSSStyleRule.prototype, ['selectorText'], 'set');
  spoiling(window.CSSMediaRule && CSSMediaRule.prototype, ['media'], 'get');
  spoiling(window.StyleSheet && StyleSheet.prototype, ['media'], 'get');
  spoiling(window.StyleSheet && StyleSheet.prototype, ['disabled'], 'set');
  spoiling(window.HTMLStyleElement && HTMLStyleElement.prototype, ['disabled'], 'set');
  spoiling(window.HTMLLinkElement && HTMLLinkElement.prototype, ['disabled'], 'set');
  spoiling(Document.prototype, ['adoptedStyleSheets'], 'set');
  spoiling(window.HTMLElement && HTMLElement.prototype, ['showPopover', 'hidePopover', 'togglePopover', 'attachInternals'], 'call');
  spoiling(window.HTMLDialogElement && HTMLDialogElement.prototype, ['show', 'showModal', 'close', 'requestClose'], 'call');
  spoiling(window.HTMLInputElement && HTMLInputElement.prototype, ['stepUp', 'stepDown', 'setRangeText'], 'call');
  spoiling(window.HTMLInputElement && HTMLInputElement.prototype, ['valueAsNumber', 'valueAsDate', 'indeterminate'], 'set');
  spoiling(window.HTMLTextAreaElement && HTMLTextAreaElement.prototype, ['setRangeText'], 'call');
  spoiling(Element.prototype, ['setHTMLUnsafe'], 'call');
  spoiling(window.Document && Document.prototype, ['execCommand'], 'call');
  const allowedSelector = (sel) => {
    let s = apply(strReplace, sel, [/\\[\s\S]/g, 'x']);
    s = apply(strReplace, s, [/"(?:[^"\\]|\\[\s\S])*"|'(?:[^'\\]|\\[\s\S])*'/g, '""']);
    s = apply(strReplace, s, [/\[[^\]]*\]/g, '[]']);
    s = apply(strReplace, s, [/::?(?:before|after|first-line|first-letter|placeholder|selection|marker|link|visited|any-link|focus|focus-visible)(?![\w(-])/gi, '']);
    s = apply(strReplace, s, [/::[\w-]+/g, '']);
    return !apply(rxTest, /[:~+]/, [s]);
  };
  const rulesWhy = (list, depth) => {
    if (!list || depth > 8) return 'a stylesheet it cannot read';
    for (let i = 0; i < apply(ruleLen, list, []); i++) {
      const r = apply(ruleItem, list, [i]), t = apply(ruleType, r, []);
      if (apply(rxTest, /counters?\(|content-visibility/i, [apply(ruleText, r, [])])) return 'a stylesheet with counters or content-visibility';
      let w = '';
      if (t === 1) {
        if (!allowedSelector(apply(selectorOf, r, []))) return 'a stylesheet whose selectors read state or siblings';
        if (nestedOf) w = rulesWhy(apply(nestedOf, r, []), depth + 1);
      } else if (t === 3) {
        const sh = apply(importOf, r, []);
        w = sh ? sheetWhy(sh, depth + 1) : 'a stylesheet it cannot read';
      } else if (t === 4 || t === 12) {
        w = rulesWhy(apply(groupRulesOf, r, []), depth + 1);
      } else if (t !== 5 && t !== 6 && t !== 7 && t !== 10) {
        return 'a stylesheet rule of a kind it does not read';
      }
      if (w) return w;
    }
    return '';
  };
  const sheetWhy = (sh, depth) => { try { return rulesWhy(apply(cssRulesOf, sh, []), depth); } catch (e) { return 'a stylesheet it cannot read'; } };
  const pageWhy = () => {
    if (apply(docQuery, document, ['[aria-labelledby],[aria-describedby],[aria-owns],[aria-activedescendant],label[for],output[for],input[type=radio],[popover],dialog,[style*="content-visibility" i],[style*="counter" i]']) !== null) return 'the page has elements that name, own or uncheck others, popovers or dialogs';
    if (cssWhy === null) {
      cssWhy = '';
      const list = apply(sheetsOf, document, []);
      for (let i = 0; !cssWhy && i < apply(sheetList, list, []); i++) cssWhy = sheetWhy(apply(sheetItem, list, [i]), 0);
      const adopted = adoptedOf ? apply(adoptedOf, document, []) : [];
      if (!cssWhy && adopted.length) cssWhy = 'adopted stylesheets';
    }
    return cssWhy;
  };
  const CONTENT = { BUTTON: 1, TD: 1, TH: 1, TR: 1, H1: 1, H2: 1, H3: 1, H4: 1, H5: 1, H6: 1 };
  const FORBID = { LABEL: 1, LEGEND: 1, CAPTION: 1, FIGCAPTION: 1, OPTION: 1, OPTGROUP: 1, SELECT: 1, DATALIST: 1, SUMMARY: 1, DETAILS: 1, DIALOG: 1, TEXTAREA: 1, OUTPUT: 1, MAP: 1, AREA: 1, STYLE: 1, TEMPLATE: 1, SLOT: 1, IFRAME: 1, FRAME: 1, OBJECT: 1, EMBED: 1 };
  const ROOTS = { TR: 1, TD: 1, TBODY: 1, THEAD: 1, TFOOT: 1, TABLE: 1, UL: 1, OL: 1, LI: 1, BUTTON: 1, H1: 1, H2: 1, H3: 1, H4: 1, H5: 1, H6: 1, P: 1, NAV: 1, MAIN: 1, ARTICLE: 1 };
  const own = (o, k) => Object.prototype.hasOwnProperty.call(o, k);
  const linkish = (a, t) => t === 'A' && apply(hasAttr, a, ['href']);
  const rootFor = (s) => {
    const el = isElement(s) ? s : apply(parentOf, s, []);
    if (!el || !apply(connectedOf, el, [])) return null; // off the page: its removal is its parent's change
    if (!isElement(el)) return 'a change at the document level';
    if (apply(rootOf, el, []) !== document) return 'a change in a shadow root';
    const body = apply(bodyOf, document, []);
    if (!body || el === body || !apply(containsOf, body, [el])) return 'a change outside the body';
    let from = el;
    for (let a = el; a !== body; a = apply(parentElOf, a, [])) {
      const t = apply(tagOf, a, []);
      if (apply(nsOf, a, []) !== XHTML) return 'a change inside svg or mathml';
      if (own(FORBID, t)) return 'a change inside ' + t;
      if (apply(hasAttr, a, ['role'])) return 'an element with an explicit role over the change';
      if (own(CONTENT, t) || linkish(a, t)) from = a;
    }
    let root = from;
    for (let t = apply(tagOf, root, []); !own(ROOTS, t) && !linkish(root, t); t = apply(tagOf, root, [])) {
      root = apply(parentElOf, root, []);
      if (root === body) return 'no element with a known role holds the change';
    }
    for (let a = apply(parentElOf, root, []); a; a = apply(parentElOf, a, [])) {
      if (apply(propOf, apply(styleOf, window, [a]), ['cursor']) === 'pointer') return 'a pointer cursor over the change';
    }
    return root;
  };
  const pathOf = (el) => {
    let p = '';
    const body = apply(bodyOf, document, []);
    for (let e = el; e !== body; e = apply(parentElOf, e, [])) {
      let i = 1;
      for (let s = apply(prevOf, e, []); s; s = apply(prevOf, s, [])) i++;
      p = ' > :nth-child(' + i + ')' + p;
    }
    return 'body' + p;
  };
  const changedSince = (k) => {
    flush();
    focusMoved();
    const head = '{"n":' + n + ',';
    if (spoiledAt > k) return head + '"why":' + stringify(spoiledWhy) + '}';
    const starts = new Map();
    apply(mapEach, log, [(e) => { if (e.n > k) apply(mapSet, starts, [e.node, 1]); }]);
    const pw = pageWhy(); // first: a :hover or :focus-within rule changes the page with no change counted
    if (pw) return head + '"why":' + stringify(pw) + ',"page":true}';
    if (apply(mapSize, starts, []) === 0) return head + '"paths":[]}';
    const roots = new Map();
    let why = '';
    apply(mapEach, starts, [(_, s) => {
      if (why) return;
      const r = rootFor(s);
      if (typeof r === 'string') why = r; else if (r) apply(mapSet, roots, [r, 1]);
    }]);
    if (why) return head + '"why":' + stringify(why) + '}';
    if (apply(mapSize, roots, []) > 8) return head + '"why":"changes in more than 8 places"}';
    let paths = '';
    apply(mapEach, roots, [(_, r) => {
      let inner = false;
      apply(mapEach, roots, [(__, o) => { if (o !== r && apply(containsOf, o, [r])) inner = true; }]);
      if (!inner) paths += (paths ? ',' : '') + stringify(pathOf(r));
    }]);
    return head + '"paths":[' + paths + ']}';
  };`

// pageKey names one document of the session's page: its URL and the navigation count (navcount.go)
// when it was read.
type pageKey struct {
	url  string
	navs int64
}

// rootRoles are the roles the elements patchLog re-reads have (ROOTS there): a patch whose re-read
// element shows another role (a generic that the snapshot would unwrap, a cell of a grid) is not
// trusted.
var rootRoles = map[string]bool{"row": true, "cell": true, "rowgroup": true, "table": true, "list": true, "listitem": true,
	"button": true, "heading": true, "paragraph": true, "navigation": true, "main": true, "article": true, "link": true}

// patchAnswer is changedSinceName's answer.
type patchAnswer struct {
	N     int64    `json:"n"`
	Why   string   `json:"why"`
	Page  bool     `json:"page"` // Why is about the page as a whole (its stylesheets, its labelled fields)
	Paths []string `json:"paths"`
}

// patchAsk reads changedSinceName(since) on the page; ok is false when the page has no such function.
func (s *Session) patchAsk(since int64) (patchAnswer, bool) {
	var a patchAnswer
	v, err := s.page.Evaluate(`(k) => { const d = Object.getOwnPropertyDescriptor(window, '`+changedSinceName+`'); return d && !d.configurable && typeof d.value === 'function' ? d.value(k) : ''; }`, since)
	str, _ := v.(string)
	if err != nil || str == "" || json.Unmarshal([]byte(str), &a) != nil {
		return a, false
	}
	return a, true
}

// splice is one re-read element: the old observation's lines [from, to) give way to lines, already
// indented to the old element's depth.
type splice struct {
	from, to int
	lines    []string
}

// patch returns the observation prev patched where the page changed since the change counter read
// prevChanges (patchLog), with the counter value it is good for; ok is false whenever the patch
// cannot be trusted, and the caller reads the whole page. Each changed place is re-read alone (an
// element-scoped AI snapshot, whose refs are the page's: Playwright keeps an element's ref while its
// role and name stay) and put where its element was: found by its own ref, or, when its name changed
// (a row whose cell changed), as the old parent of its children that kept their refs (one such place
// at most). The counter is read again after the last re-read: any change during the patch, or a
// navigation, and the page is read whole.
func (s *Session) patch(prev *observe.Observation, prevChanges int64) (*observe.Observation, int64, bool) {
	navs := s.navs.Load()
	ans, ok := s.patchAsk(prevChanges)
	if !ok || ans.Why != "" || len(s.page.Frames()) != 1 {
		s.patchRefusals.Add(1)
		if ok && ans.Page {
			s.mu.Lock()
			s.unpatchable = pageKey{url: prev.URL, navs: navs}
			s.mu.Unlock()
		}
		return nil, 0, false
	}
	lines := strings.Split(prev.Raw, "\n")
	var cuts []splice
	byParent := 0
	for _, path := range ans.Paths {
		raw, err := s.page.Locator("css=" + path).AriaSnapshot(playwright.LocatorAriaSnapshotOptions{Mode: playwright.AriaSnapshotModeAi, Timeout: ms(s.opts.SnapshotTimeout)})
		s.heldRefs(raw) // Playwright's ref map now holds this element's refs alone (refmap.go)
		if err != nil {
			return nil, 0, false
		}
		c, parent, err := placeSubtree(prev, lines, raw)
		if err != nil {
			s.patchRefusals.Add(1)
			return nil, 0, false
		}
		if parent {
			byParent++
		}
		cuts = append(cuts, c)
	}
	if byParent > 1 {
		s.patchRefusals.Add(1)
		return nil, 0, false
	}
	if again, err := s.changes(); err != nil || again != ans.N || s.navs.Load() != navs || s.page.URL() != prev.URL {
		return nil, 0, false
	}
	raw, err := applySplices(lines, cuts)
	if err != nil {
		s.patchRefusals.Add(1)
		return nil, 0, false
	}
	obs, err := observe.Parse(observe.NewSnapshotID(), prev.URL, raw)
	if err != nil || !obs.Complete {
		return nil, 0, false
	}
	s.patches.Add(1)
	return obs, ans.N, true
}

// placeSubtree finds where raw, an element's own AI snapshot, goes in prev (whose raw lines are
// lines): the old element's line and its deeper lines. byParent says it was found through its
// children (its own ref changed with its name).
func placeSubtree(prev *observe.Observation, lines []string, raw string) (c splice, byParent bool, err error) {
	sub, err := observe.Parse("patch", prev.URL, raw)
	if err != nil || !sub.Complete || len(sub.Nodes) == 0 {
		return c, false, fmt.Errorf("the re-read element's snapshot is not readable")
	}
	top := sub.Nodes[0]
	for _, n := range sub.Nodes[1:] {
		if n.Depth == 0 {
			return c, false, fmt.Errorf("the re-read element's snapshot has more than one top node")
		}
	}
	if !top.HasRef() || !rootRoles[top.Role] {
		return c, false, fmt.Errorf("the re-read element is a %s without a ref or of a role the patch does not place", top.Role)
	}
	old, found := nodeByRef(prev, top.RawRef)
	if !found {
		if old, found = oldParent(prev, sub); !found {
			return c, false, fmt.Errorf("the re-read element's place in the old observation is unknown")
		}
		byParent = true
	}
	if old.Role != top.Role {
		return c, false, fmt.Errorf("the re-read element was a %s and is a %s", old.Role, top.Role)
	}
	from := old.Line - 1
	indent := leadingSpaces(lines[from])
	to := from + 1
	for to < len(lines) && (strings.TrimSpace(lines[to]) == "" || leadingSpaces(lines[to]) > indent) {
		to++
	}
	pad := strings.Repeat(" ", indent)
	for l := range strings.Lines(strings.TrimRight(raw, "\n")) {
		c.lines = append(c.lines, pad+strings.TrimRight(l, "\n"))
	}
	c.from, c.to = from, to
	return c, byParent, nil
}

// oldParent is the node of prev that was the parent of every child of sub's top node that kept its
// ref, when there is one such parent, it has the top node's depth-defining role, and its own ref is
// in sub nowhere (the element's ref changed with its name).
func oldParent(prev *observe.Observation, sub *observe.Observation) (observe.Node, bool) {
	parent := -1
	for _, ci := range sub.Nodes[0].Children {
		c := sub.Nodes[ci]
		if !c.HasRef() {
			continue
		}
		n, ok := nodeIndexByRef(prev, c.RawRef)
		if !ok {
			continue
		}
		p := prev.Nodes[n].Parent
		if p < 0 || (parent >= 0 && p != parent) {
			return observe.Node{}, false
		}
		parent = p
	}
	if parent < 0 || !prev.Nodes[parent].HasRef() {
		return observe.Node{}, false
	}
	if _, again := nodeIndexByRef(sub, prev.Nodes[parent].RawRef); again {
		return observe.Node{}, false
	}
	return prev.Nodes[parent], true
}

func nodeByRef(o *observe.Observation, raw string) (observe.Node, bool) {
	i, ok := nodeIndexByRef(o, raw)
	if !ok {
		return observe.Node{}, false
	}
	return o.Nodes[i], true
}

func nodeIndexByRef(o *observe.Observation, raw string) (int, bool) {
	for i := range o.Nodes {
		if o.Nodes[i].RawRef == raw {
			return i, true
		}
	}
	return -1, false
}

func leadingSpaces(s string) int { return len(s) - len(strings.TrimLeft(s, " ")) }

// applySplices replaces each splice's lines; splices that overlap are refused.
func applySplices(lines []string, cuts []splice) (string, error) {
	out := make([]string, 0, len(lines))
	at := 0
	for len(cuts) > 0 {
		next := 0
		for i, c := range cuts {
			if c.from < cuts[next].from {
				next = i
			}
		}
		c := cuts[next]
		cuts = append(cuts[:next], cuts[next+1:]...)
		if c.from < at {
			return "", fmt.Errorf("two re-read elements overlap in the old observation")
		}
		out = append(out, lines[at:c.from]...)
		out = append(out, c.lines...)
		at = c.to
	}
	out = append(out, lines[at:]...)
	return strings.Join(out, "\n"), nil
}

// observePatched is Observe's patched read (patch): done is false when the last observation cannot be
// patched (not allowed, none, the counter unknown on either read, another document, FullObservation, or the patch
// refused), and Observe reads the whole page. A transient error counting the secret fields is
// returned with done true, so Observe tries again.
func (s *Session) observePatched(allowed bool, dispatches int64, changesKnown bool, navs int64) (obs *observe.Observation, done bool, err error) {
	s.mu.Lock()
	prev, prevChanges, prevKnown, prevNavs := s.latest, s.latestChanges, s.latestChangesKnown, s.latestNavs
	s.mu.Unlock()
	if !allowed || s.opts.FullObservation || prev == nil || !prev.Complete || !changesKnown || !prevKnown || prevNavs != navs || prev.URL != s.page.URL() {
		return nil, false, nil
	}
	s.mu.Lock()
	off := s.unpatchable == pageKey{url: prev.URL, navs: navs}
	s.mu.Unlock()
	if off { // this document refused for the page as a whole: not asked again until a navigation
		return nil, false, nil
	}
	obs, n, ok := s.patch(prev, prevChanges)
	if !ok {
		return nil, false, nil
	}
	obs.SecretFields = -1
	count, err := s.page.Locator(secretFieldsSelector).Count()
	if err != nil && transient(err) {
		return nil, true, err
	}
	if err == nil {
		obs.SecretFields = count
	}
	// What no subtree holds is read for the whole page again: the code boxes, and what is on top (an
	// overlay the patch added covers untouched elements; one it removed uncovers them).
	obs.CodeBoxes, obs.CodeInputs = s.codeInputs()
	for i := range obs.Nodes {
		obs.Nodes[i].CoveredBy, obs.Nodes[i].ViaLabel = "", false
	}
	if err := s.markCovered(obs); err != nil && transient(err) {
		return nil, true, err
	}
	s.mu.Lock()
	s.latest = obs
	s.latestChanges, s.latestChangesKnown, s.latestNavs, s.latestDispatches = n, true, navs, dispatches
	s.mu.Unlock()
	return obs, true, nil
}

// Patches is how many observations the session patched where the page changed instead of reading
// the page whole, and PatchRefusals how many patches it refused (patch.go). For benchmarks and tests.
func (s *Session) Patches() int64       { return s.patches.Load() }
func (s *Session) PatchRefusals() int64 { return s.patchRefusals.Load() }
