package browser

import (
	"time"

	playwright "github.com/mxschmitt/playwright-go"

	"context"
	"encoding/json"
	"fmt"

	"github.com/trapline/trapline/agentkit"
	"github.com/trapline/trapline/agentkit/action"
	"github.com/trapline/trapline/agentkit/observe"
	"github.com/trapline/trapline/agentkit/policy"
)

var _ agentkit.TargetInspector = (*Session)(nil)

// factsScript reads, for one element, what an action on it will do. It runs in the page with the
// element and {kind, value, key}. For a press it focuses the element, as the press itself will, and
// reads the element that then has the focus (a focus handler may move it).
const factsScript = `(el, {kind, value, key}) => {
  const text = e => {
    if (e instanceof HTMLInputElement && ['submit', 'button', 'reset', 'image'].includes(e.type)) return e.value || e.alt || '';
    // A select shows its current option, which is its value, not its label: what a select will do is
    // the option it chooses (out.option), judged as such.
    if (e instanceof HTMLSelectElement) return '';
    if (e instanceof HTMLInputElement || e instanceof HTMLTextAreaElement) return '';
    return (e.innerText || e.textContent || '').trim();
  };
  const submitter = e => {
    if (e instanceof HTMLButtonElement) return e.type === 'submit' && e.form ? e : null;
    if (e instanceof HTMLInputElement && (e.type === 'submit' || e.type === 'image')) return e.form ? e : null;
    return null;
  };
  const submission = (form, s) => {
    const method = s && s.hasAttribute('formmethod') ? s.formMethod : form.method;
    const action = s && s.hasAttribute('formaction') ? s.formAction : form.action;
    return {method: String(method || 'get').toUpperCase(), url: String(action)};
  };
  const role = e => e.getAttribute('role') || ({A: 'link', BUTTON: 'button', SELECT: 'combobox', TEXTAREA: 'textbox'}[e.tagName]
    || (e instanceof HTMLInputElement ? (['submit', 'button', 'reset', 'image'].includes(e.type) ? 'button' : 'textbox') : e.tagName.toLowerCase()));
  const name = e => {
    const l = e.getAttribute('aria-label');
    if (l) return l.trim();
    const by = e.getAttribute('aria-labelledby');
    if (by) return by.split(/\s+/).map(id => (document.getElementById(id) || {}).textContent || '').join(' ').trim();
    if (e.labels && e.labels.length) return [...e.labels].map(x => x.textContent).join(' ').trim();
    return text(e) || e.getAttribute('title') || e.getAttribute('placeholder') || '';
  };
  // The name comes from the content only without aria-label, aria-labelledby and a <label> (a
  // <label for> names a button before its text does): text that then disagrees with the name is a
  // lying label, not an element that changed.
  const out = {visibleText: text(el), nameFromContent: !el.getAttribute('aria-label') && !el.getAttribute('aria-labelledby') && !(el.labels && el.labels.length)};
  if (kind === 'click') {
    const s = submitter(el);
    if (s) out.submit = submission(s.form, s);
  }
  if (kind === 'select' && el instanceof HTMLSelectElement) {
    const opts = [...el.options];
    const o = opts.find(o => o.value === value) || opts.find(o => o.label === value);
    if (o) out.option = {label: o.label, value: o.value};
  }
  if (kind === 'press') {
    el.focus();
    const r = document.activeElement && document.activeElement !== document.body ? document.activeElement : el;
    if (r !== el) out.receiver = {role: role(r), name: name(r), visibleText: text(r)};
    if (key === 'Enter') {
      const s = submitter(r);
      if (s) out.submit = submission(s.form, s);
      else if (r instanceof HTMLInputElement && r.form && !['button', 'reset', 'checkbox', 'radio', 'file', 'hidden'].includes(r.type)) {
        // Implicit submission (HTML §4.10.21.2): through the form's default button, or, without one,
        // when the form has a single field that blocks it.
        const form = r.form;
        const def = [...form.elements].find(submitter);
        const blocking = [...form.elements].filter(x => x instanceof HTMLInputElement &&
          !['button', 'reset', 'submit', 'image', 'checkbox', 'radio', 'file', 'hidden'].includes(x.type));
        if (def) { if (!def.disabled) out.submit = submission(form, def); }
        else if (blocking.length === 1) out.submit = submission(form, null);
      }
    }
  }
  return JSON.stringify(out);
}`

// rawFacts is factsScript's answer.
type rawFacts struct {
	VisibleText     string             `json:"visibleText"`
	NameFromContent bool               `json:"nameFromContent"`
	Submit          *policy.Submission `json:"submit"`
	Option          *policy.Option     `json:"option"`
	Receiver        *struct {
		Role        string `json:"role"`
		Name        string `json:"name"`
		VisibleText string `json:"visibleText"`
	} `json:"receiver"`
}

// Inspect implements agentkit.TargetInspector: it reads from the DOM what a on target will do. The
// target must belong to the latest snapshot, or the facts are unknown (an error).
func (s *Session) Inspect(_ context.Context, obs *observe.Observation, a action.Action, target observe.Node) (*policy.Facts, error) {
	s.mu.Lock()
	latest := s.latest
	s.mu.Unlock()
	if latest == nil || obs.SnapshotID != latest.SnapshotID {
		return nil, fmt.Errorf("%s belongs to snapshot %s, not the latest one", a.Ref, obs.SnapshotID)
	}
	if err := s.ensureRef(target); err != nil {
		return nil, fmt.Errorf("read %s %q from the page: %w", target.Role, target.Name, err)
	}
	loc, err := s.locate(target) // what the action works on: a hidden toggle's visible label (ontop.go)
	if err != nil {
		return nil, fmt.Errorf("read %s %q from the page: %w", target.Role, target.Name, err)
	}
	res, err := loc.Evaluate(factsScript, map[string]any{"kind": string(a.Kind), "value": a.Value, "key": a.Key}, pwEvaluateTimeout(s.opts.ActionTimeout))
	if err != nil {
		return nil, fmt.Errorf("read %s %q from the page: %w", target.Role, target.Name, err)
	}
	str, ok := res.(string)
	if !ok {
		return nil, fmt.Errorf("read %s %q from the page: unexpected answer %T", target.Role, target.Name, res)
	}
	var raw rawFacts
	if err := json.Unmarshal([]byte(str), &raw); err != nil {
		return nil, fmt.Errorf("read %s %q from the page: %w", target.Role, target.Name, err)
	}
	f := &policy.Facts{VisibleText: raw.VisibleText, NameFromContent: raw.NameFromContent, Submit: raw.Submit, Option: raw.Option}
	if r := raw.Receiver; r != nil {
		f.Receiver = &policy.Target{Role: r.Role, Name: r.Name, Facts: &policy.Facts{VisibleText: r.VisibleText}}
	}
	return f, nil
}

// pwEvaluateTimeout bounds the wait for the locator of an evaluation.
func pwEvaluateTimeout(d time.Duration) playwright.LocatorEvaluateOptions {
	return playwright.LocatorEvaluateOptions{Timeout: ms(d)}
}
