package toolmap

import (
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strings"
)

// A server whose only way to read the page is a script tool (@modelcontextprotocol/server-puppeteer's
// puppeteer_evaluate beside a screenshot; an execute-code tool) is read with trapline's own fixed
// script, never a script the page or the model wrote: it returns the page's interactive elements
// (role, accessible name, visible text, a unique CSS selector it computes) and its visible text, in
// document order, as one JSON string (FormScript). A server with no tool for an action but the script
// tool gets the action as a fixed script too: click, fill, select, hover and scroll the element the
// reader's selector names, navigate by assigning location.href.

// FormScript is the page state trapline's page-reading script returns.
const FormScript = "script"

// scriptMarker is the reader's first key: how its answer is found inside a tool's wrapping ("Execution
// result:\n"...").
const scriptMarker = "trapline_page"

// readerBody is the page-reading script's body (a function body that returns the JSON string).
const readerBody = `const vis = (e) => { const s = getComputedStyle(e); return s.visibility !== 'hidden' && s.display !== 'none' && e.getClientRects().length > 0; };
const txt = (e) => (e.innerText || e.textContent || '').replace(/\s+/g, ' ').trim();
const roleOf = (e) => {
  const r = (e.getAttribute('role') || '').trim().split(/\s+/)[0]; if (r) return r;
  const t = e.tagName.toLowerCase();
  if (t === 'a') return e.hasAttribute('href') ? 'link' : (e.hasAttribute('onclick') ? 'generic' : '');
  if (t === 'button' || t === 'summary') return 'button';
  if (t === 'select') return 'combobox';
  if (t === 'textarea') return 'textbox';
  if (t === 'input') { const ty = (e.getAttribute('type') || 'text').toLowerCase();
    return ({checkbox: 'checkbox', radio: 'radio', submit: 'button', button: 'button', reset: 'button', image: 'button', hidden: ''})[ty] ?? 'textbox'; }
  if (/^h[1-6]$/.test(t)) return 'heading';
  return e.hasAttribute('onclick') ? 'generic' : '';
};
const nameOf = (e) => {
  const l = (e.getAttribute('aria-label') || '').trim(); if (l) return l;
  const lb = e.getAttribute('aria-labelledby');
  if (lb) { const s = lb.split(/\s+/).map((id) => document.getElementById(id)).filter(Boolean).map(txt).join(' ').trim(); if (s) return s; }
  if (e.labels && e.labels.length) { const s = Array.from(e.labels).map(txt).join(' ').trim(); if (s) return s; }
  const t = e.tagName.toLowerCase();
  if (t !== 'input' && t !== 'select' && t !== 'textarea') { const s = txt(e); if (s) return s; }
  for (const a of ['title', 'alt', 'placeholder']) { const v = (e.getAttribute(a) || '').trim(); if (v) return v; }
  if (t === 'input' && ['submit', 'button', 'reset'].includes(e.type)) return e.value || '';
  const img = e.querySelector('img[alt]'); return img ? img.alt.trim() : '';
};
const sel = (e) => {
  if (e.id && document.querySelectorAll('#' + CSS.escape(e.id)).length === 1) return '#' + CSS.escape(e.id);
  const steps = [];
  for (let n = e; n && n.nodeType === 1 && n !== document.documentElement; n = n.parentElement) {
    if (n === document.body) { steps.unshift('body'); break; }
    let k = 1; for (let s = n.previousElementSibling; s; s = s.previousElementSibling) if (s.tagName === n.tagName) k++;
    steps.unshift(n.tagName.toLowerCase() + ':nth-of-type(' + k + ')');
  }
  return steps.join(' > ');
};
const items = [];
const walk = (n) => {
  if (n.nodeType === 3) { const t = n.data.replace(/\s+/g, ' ').trim(); if (t && n.parentElement && vis(n.parentElement)) items.push({text: t}); return; }
  if (n.nodeType !== 1) return;
  const tag = n.tagName.toLowerCase();
  if (['script', 'style', 'noscript', 'template', 'head'].includes(tag) || getComputedStyle(n).display === 'none') return;
  const role = roleOf(n);
  if (role) {
    if (!vis(n)) return;
    const it = {role, name: nameOf(n), selector: sel(n), text: txt(n)};
    if (role === 'heading') it.level = Number(n.getAttribute('aria-level')) || Number(tag.slice(1)) || 2;
    if (role === 'link') it.href = n.getAttribute('href') || '';
    if (n.disabled) it.disabled = true;
    if (n.checked) it.checked = true;
    if (tag === 'select') it.options = Array.from(n.options).map((o) => o.text.trim());
    items.push(it); return;
  }
  for (const c of n.childNodes) walk(c);
};
walk(document.body || document.documentElement);
return JSON.stringify({` + scriptMarker + `: 1, url: location.href, title: document.title, items});`

// ReaderScript is the page-reading script as the binding's tool takes it.
func ReaderScript(b Binding) string { return wrapScript(b, readerBody) }

// wrapScript makes a function body into what b's argument takes: a function declaration, or an
// expression that calls it.
func wrapScript(b Binding, body string) string {
	if b.ScriptAsFunction {
		return "() => {\n" + body + "\n}"
	}
	return "(() => {\n" + body + "\n})()"
}

// scriptable are the capabilities a fixed script does when the server has no tool for them. A key
// press is not among them: a synthetic key event does not do what a key does (submit a form).
var scriptable = map[Capability]bool{Navigate: true, Click: true, Fill: true, Select: true, Hover: true, Scroll: true, Snapshot: true}

// ViaScript reports whether c can be done with a fixed script.
func ViaScript(c Capability) bool { return scriptable[c] }

// ErrNoSelector says a script action's element has no CSS selector: the page state it came from was
// not the reader's.
var ErrNoSelector = errors.New("the element has no CSS selector to find it by")

// jsString is s as a JavaScript string literal: JSON's, without escaping <, > and & (U+2028 and
// U+2029 stay escaped, as JavaScript needs).
func jsString(s string) string {
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s)
	return strings.TrimSuffix(b.String(), "\n")
}

// findBody finds the request's element by its selector or throws.
func findBody(r Request) (string, error) {
	if r.Element.Selector == "" {
		return "", fmt.Errorf("toolmap: %s by script: %w (%s)", r.Capability, ErrNoSelector, r.Element.Describe())
	}
	s := jsString(r.Element.Selector)
	return "const e = document.querySelector(" + s + "); if (!e) throw new Error('no element matches ' + " + s + ");\n", nil
}

// actionBody is the fixed script for r.
func actionBody(r Request) (string, error) {
	switch r.Capability {
	case Snapshot:
		return readerBody, nil
	case Navigate:
		return "location.href = " + jsString(r.URL) + "; return 'navigating to ' + " + jsString(r.URL) + ";", nil
	case Scroll:
		sign := ""
		if r.Direction == "up" {
			sign = "-"
		}
		return "window.scrollBy(0, " + sign + "Math.round(innerHeight * 0.8)); return 'scrolled';", nil
	}
	find, err := findBody(r)
	if err != nil {
		return "", err
	}
	v := jsString(r.Value)
	switch r.Capability {
	case Click:
		return find + "e.scrollIntoView({block: 'center'}); e.click(); return 'clicked';", nil
	case Hover:
		return find + "for (const t of ['pointerover', 'mouseover', 'mouseenter']) e.dispatchEvent(new MouseEvent(t, {bubbles: t !== 'mouseenter'})); return 'hovered';", nil
	case Fill:
		return find + "e.focus(); const d = Object.getOwnPropertyDescriptor(Object.getPrototypeOf(e), 'value'); if (d && d.set) d.set.call(e, " + v +
			"); else e.value = " + v + "; e.dispatchEvent(new Event('input', {bubbles: true})); e.dispatchEvent(new Event('change', {bubbles: true})); return 'filled';", nil
	case Select:
		return find + "const o = Array.from(e.options || []).find((o) => o.value === " + v + " || o.text.trim() === " + v +
			"); if (!o) throw new Error('no option ' + " + v + "); e.value = o.value; e.dispatchEvent(new Event('input', {bubbles: true})); e.dispatchEvent(new Event('change', {bubbles: true})); return 'selected';", nil
	}
	return "", fmt.Errorf("%w: %s", ErrNotOffered, r.Capability)
}

// scriptCall is r as a call of the script tool b.
func scriptCall(b Binding, r Request) (Call, error) {
	body, err := actionBody(r)
	if err != nil {
		return Call{}, err
	}
	args := map[string]any{b.Script: wrapScript(b, body)}
	for k, v := range b.Fixed {
		args[k] = v
	}
	for _, k := range b.Context {
		v, ok := r.Context[k]
		if !ok {
			return Call{}, fmt.Errorf("toolmap: %s needs the argument %q, which the session did not give", b.Tool, k)
		}
		args[k] = v
	}
	return Call{Tool: b.Tool, Args: args}, nil
}

// plainRole is an ARIA role as the aria snapshot writes one.
var plainRole = regexp.MustCompile(`^[a-z]+$`)

// scriptPage is the reader's answer.
type scriptPage struct {
	Marker int          `json:"trapline_page"`
	URL    string       `json:"url"`
	Title  string       `json:"title"`
	Items  []scriptItem `json:"items"`
}

type scriptItem struct {
	Text     string   `json:"text,omitempty"` // a text node; with Role, the element's visible text
	Role     string   `json:"role,omitempty"`
	Name     string   `json:"name,omitempty"`
	Selector string   `json:"selector,omitempty"`
	Level    int      `json:"level,omitempty"`
	Href     *string  `json:"href,omitempty"`
	Disabled bool     `json:"disabled,omitempty"`
	Checked  bool     `json:"checked,omitempty"`
	Options  []string `json:"options,omitempty"`
}

// findScriptPage finds the reader's JSON in a tool's answer, whatever the tool wrapped it in: the
// object itself, or the JSON string the script returned, quoted once more by the tool
// (puppeteer_evaluate's "Execution result:\n\"{...}\""). ok is false when the answer holds none.
func findScriptPage(answer string) (*scriptPage, bool, error) {
	i := strings.Index(answer, scriptMarker)
	if i < 0 {
		return nil, false, nil
	}
	brace := strings.LastIndex(answer[:i], "{")
	if brace < 0 {
		return nil, false, nil
	}
	var page scriptPage
	src := answer[brace:]
	if q := strings.LastIndex(answer[:brace], `"`); q >= 0 && strings.TrimSpace(answer[q+1:brace]) == "" {
		var s string // the tool quoted the script's string
		if err := json.NewDecoder(strings.NewReader(answer[q:])).Decode(&s); err != nil {
			return nil, true, fmt.Errorf("the page reader's answer: %w", err)
		}
		src = s
	}
	if err := json.NewDecoder(strings.NewReader(src)).Decode(&page); err != nil {
		return nil, true, fmt.Errorf("the page reader's answer: %w", err)
	}
	if page.Marker != 1 {
		return nil, true, fmt.Errorf("the page reader's answer has no %s marker", scriptMarker)
	}
	return &page, true, nil
}

// parseScriptPage rewrites the reader's answer as an aria snapshot, each element's handle its selector
// and its visible text.
func parseScriptPage(page *scriptPage) *State {
	st := &State{Form: FormScript, URL: page.URL, Elements: map[string]Element{}}
	var b strings.Builder
	for _, it := range page.Items {
		switch {
		case it.Role == "":
			if t := strings.TrimSpace(it.Text); t != "" {
				fmt.Fprintf(&b, "- text: %s\n", jsonString(t))
			}
		case it.Role == "heading":
			fmt.Fprintf(&b, "- heading %s [level=%d]\n", jsonString(it.Name), max(it.Level, 1))
		default:
			if !plainRole.MatchString(it.Role) { // a page's role attribute is the page's words, not a role
				it.Role = "generic"
			}
			ref := fmt.Sprintf("e%d", len(st.Elements)+1)
			st.Elements[ref] = Element{Selector: it.Selector, Text: it.Text, Role: it.Role, Name: it.Name}
			href := ""
			if it.Href != nil { // one line: a line break in the attribute must not start a line of its own
				href = strings.Join(strings.Fields(*it.Href), "")
			}
			writeScriptLine(&b, it, ref, href)
		}
	}
	st.Aria = strings.TrimRight(b.String(), "\n")
	return st
}

func writeScriptLine(b *strings.Builder, it scriptItem, ref, href string) {
	fmt.Fprintf(b, "- %s", it.Role)
	if it.Name != "" {
		b.WriteString(" " + jsonString(it.Name))
	}
	if it.Checked {
		b.WriteString(" [checked]")
	}
	if it.Disabled {
		b.WriteString(" [disabled]")
	}
	fmt.Fprintf(b, " [ref=%s]\n", ref)
	if href != "" && it.Role == "link" {
		fmt.Fprintf(b, "  - /url: %s\n", href)
	}
	for _, o := range it.Options {
		fmt.Fprintf(b, "  - option %s\n", jsonString(o))
	}
}

// VisibleText is what a click-by-text tool finds e by: its visible text, else its accessible name.
func (e Element) VisibleText() string {
	if t := strings.TrimSpace(e.Text); t != "" {
		return t
	}
	return strings.TrimSpace(e.Name)
}

// ErrAmbiguous says a click-by-text tool would not know which element the action means: another
// element on the page shows the same text, or a text containing it.
var ErrAmbiguous = errors.New("the element's visible text does not name it alone")

// Unambiguous checks, for a binding that names its element by visible text, that no other element of
// the page state (els) has a text that equals or contains the target's, case aside: a tool that finds
// the first match, exactly or by substring, would click another element than the one the action
// means. Fail closed: the action is not made. Other kinds are unambiguous by construction.
func Unambiguous(b Binding, target Element, els map[string]Element) error {
	if b.ElementKind != KindText {
		return nil
	}
	want := strings.ToLower(target.VisibleText())
	if want == "" {
		return fmt.Errorf("%s names its element by visible text and %s shows none: %w", b.Tool, target.Describe(), ErrAmbiguous)
	}
	n := 0
	for _, e := range els {
		if strings.Contains(strings.ToLower(e.VisibleText()), want) {
			n++
		}
	}
	if n > 1 {
		return fmt.Errorf("%s names its element by visible text and %d elements show %q: %w", b.Tool, n, target.VisibleText(), ErrAmbiguous)
	}
	return nil
}
