package policy

import (
	"net/url"
	"strings"
)

// Facts are what the page says an action on its target will really do, read from the DOM before
// dispatch (agentkit.TargetInspector). The accessible name is the one thing a page controls most
// easily; these are what a person looking at the page would see and what the browser would send.
// A nil Facts (a driver that reads none) leaves the action judged on its name alone.
type Facts struct {
	// VisibleText is the element's rendered text (innerText; an input button's value), "" if none.
	// Deny words are matched on it too; a match that the name lacks is a lying label (RuleLabelMismatch).
	VisibleText string
	// NameFromContent says the element has no aria-label or aria-labelledby: its accessible name is
	// its text. Visible text that then says a deny word the observed name lacks is not a lying label
	// but an element that changed since the snapshot (RuleStaleRef, unless GuardStaleRef is off).
	NameFromContent bool
	// Option is the option a select will choose (by value, else by label), nil when none matches.
	Option *Option
	// Submit is the form submission the action will start: a click on a submit control, or Enter in a
	// form (the default button's, or an implicit one). Method and URL are the effective ones
	// (formmethod and formaction override the form's). Nil when the action submits no form.
	Submit *Submission
	// Receiver is the element a press will reach when it is not the target: the element that has the
	// focus once the target was focused (a focus handler may move it). Nil when it is the target.
	Receiver *Target
	// Value is the value a fill will type.
	Value string
}

// Option is one option of a select.
type Option struct {
	Label string
	Value string
}

// Submission is a form submission as the browser will send it.
type Submission struct {
	Method string // upper case: GET, POST, or DIALOG (no request)
	URL    string // absolute
}

// operationFieldRoots are the word roots of a field name that make the field choose an operation
// ("Operazione", "Azione da eseguire", "Command"): what is typed into it is an instruction, and is
// matched against the deny words like a button's name.
var operationFieldRoots = []string{"operazion", "azion", "comand", "operation", "action", "command"}

// IsOperationField reports whether a field's accessible name says it chooses an operation.
func IsOperationField(name string) bool {
	for _, tok := range strings.Fields(NormalizeText(name)) {
		for _, r := range operationFieldRoots {
			if strings.HasPrefix(tok, r) {
				return true
			}
		}
	}
	return false
}

// checkFacts judges what the action will do, after the name passed checkTarget. In order: deny
// words in the visible text (RuleLabelMismatch: the name did not say it), in the chosen option's
// label and value (RuleDenyWord), in the value typed into an operation field (RuleDenyWord); the
// element a press reaches, as a target of its own; the form submission, as a navigation request
// through DecideRequest (deny paths, allowlist and the write rules).
func (p *Policy) checkFacts(in Input, t Target) (Decision, bool) {
	f := t.Facts
	if f == nil {
		return Decision{}, true
	}
	if d, ok := p.checkWords(in, t, f.VisibleText, func(cat, root string) Decision {
		if f.NameFromContent && !p.off.Has(GuardStaleRef) {
			return deny(RuleStaleRef, "%s %q takes its name from its text, which now shows %q (deny word %q, %s): the element changed since the snapshot; re-observe", t.Role, t.Name, f.VisibleText, root, cat)
		}
		return deny(RuleLabelMismatch, "the element is named %q but shows %q, which matches deny word %q (%s): a lying label", t.Name, f.VisibleText, root, cat)
	}); !ok {
		return d, false
	}
	if in.Kind == KindSelect && f.Option != nil {
		for _, s := range []string{f.Option.Label, f.Option.Value} {
			if d, ok := p.checkWords(in, t, s, func(cat, root string) Decision {
				return deny(RuleDenyWord, "select %q chooses option %q (value %q), which matches deny word %q (%s)", t.Name, f.Option.Label, f.Option.Value, root, cat)
			}); !ok {
				return d, false
			}
		}
	}
	if in.Kind == KindFill && f.Value != "" && IsOperationField(t.Name) {
		if d, ok := p.checkWords(in, t, f.Value, func(cat, root string) Decision {
			return deny(RuleDenyWord, "value %q typed into operation field %q matches deny word %q (%s)", f.Value, t.Name, root, cat)
		}); !ok {
			return d, false
		}
	}
	if in.Kind == KindPress && f.Receiver != nil {
		rin := in
		rin.Target = f.Receiver
		if d, ok := p.checkTarget(rin); !ok {
			d.Reason = "the key goes to the focused element, not the target: " + d.Reason
			return d, false
		}
	}
	if s := f.Submit; s != nil && !strings.EqualFold(s.Method, "dialog") {
		u := resolveRef(in.Page, s.URL)
		if d := p.DecideRequest(Request{Method: s.Method, URL: u, Navigation: true}); !d.Allow {
			d.Reason = "the form it submits: " + d.Reason
			return d, false
		}
		if path, ok := requestPath(u); ok && p.approvalWrite(s.Method, path) {
			return ask("the form it submits, %s %s, is a write that needs a person's approval", strings.ToUpper(s.Method), path), false
		}
	}
	return Decision{}, true
}

// checkWords matches the deny words in text, honouring the exceptions of target t; denial builds
// the decision for a match.
func (p *Policy) checkWords(in Input, t Target, text string, denial func(cat, root string) Decision) (Decision, bool) {
	norm := NormalizeText(text)
	if p.off.Has(GuardTextNormalization) {
		norm = lowerOnly(text)
	}
	cat, root, ok := p.matchName(text, norm)
	if !ok || p.exceptionFor(t, in.Page) {
		return Decision{}, true
	}
	if p.approvalCategory(cat) {
		return ask("%q matches deny word %q (%s), a category that needs a person's approval", text, root, cat), false
	}
	return denial(cat, root), false
}

// requestPath is the normalised path of an absolute URL.
func requestPath(raw string) (string, bool) {
	u, err := url.Parse(raw)
	if err != nil {
		return "", false
	}
	path, err := NormalizePath(u.EscapedPath())
	return path, err == nil
}
