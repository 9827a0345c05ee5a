package policy

import (
	"fmt"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/trapline/trapline/internal/userfile"
)

// Ask, as the dialogs setting or a dialog rule's then, hands a dialog to the run's approver (the one
// actions.require_approval asks): it is accepted only when the approver approves, dismissed otherwise.
const Ask Setting = "ask"

// MaxDialogMessage bounds the dialog message a rule reads, in bytes. A longer message is dismissed
// unread: what its tail says cannot be judged without reading it all, and accepting on a prefix
// would accept what the prefix hides.
const MaxDialogMessage = 4096

// dialogSettings are the values of dialogs (the scalar form), dialogs.default and a rule's then.
var dialogSettings = []string{string(DismissAndLog), string(Accept), string(Ask)}

// DialogRule is one entry of dialogs.rules: what to do with a dialog whose message matches Text and,
// when After is set, that the action on After's element opened.
//
//	dialogs:
//	  default: dismiss_and_log
//	  rules:
//	    - {text: "confermi il salvataggio", after: {role: button, name: "^salva$"}, then: accept}
//	    - {text: "sei sicuro", then: ask}
type DialogRule struct {
	// Text is a regex on the dialog's message as NormalizeText and CompactText read it (lower case,
	// no accents, punctuation or look-alikes: "Confermi il salvataggio?" reads "confermi il
	// salvataggio"); it matches when either reading matches.
	Text *Pattern `policy:"text"`
	// After, when not nil, is the element of the action that opened the dialog: the rule matches only
	// a dialog opened while an action on such an element was being dispatched.
	After *DialogOpener `policy:"after"`
	// Then is Accept, DismissAndLog or Ask.
	Then Setting `policy:"then"`
}

// DialogOpener names the element of the action that opened a dialog.
type DialogOpener struct {
	Role string   `policy:"role"` // ARIA role, compared case-insensitively; "" for any role
	Name *Pattern `policy:"name"` // regex on the element's accessible name as NormalizeText reads it; nil for any name
}

// Dialog is a JavaScript dialog (alert, confirm, prompt, beforeunload) as the browser saw it open.
type Dialog struct {
	Type    string // alert, confirm, prompt or beforeunload
	Message string // as the page wrote it
	// Opener is the target of the action being dispatched when the dialog opened; nil when none was
	// (a goto, a dialog the page opened on its own after its action was done): a rule with After
	// never matches it.
	Opener *Target
}

// DecideDialog rules on a dialog: Allow to accept it, Ask to hand it to the approver (accepted only
// when approved), otherwise dismiss it (rule RuleDialog). Every rule of dialogs.rules whose Text
// matches the message and whose After matches the opener is considered: when they all say the same,
// that is the decision; when two disagree, the dialog is dismissed (an ambiguous match is refused,
// never guessed); when none matches, dialogs' default decides (the scalar form sets only the
// default). A message longer than MaxDialogMessage is dismissed unread.
func (p *Policy) DecideDialog(d Dialog) Decision {
	what := fmt.Sprintf("%s dialog %q", dialogType(d.Type), excerpt(d.Message))
	if len(d.Message) > MaxDialogMessage {
		return deny(RuleDialog, "%s dismissed: its message is %d bytes, over the %d a rule reads (policy.MaxDialogMessage)", what, len(d.Message), MaxDialogMessage)
	}
	matched := p.matchDialogRules(d)
	if len(matched) == 0 {
		return dialogDecision(p.Dialogs, what, "by dialogs' default")
	}
	then := p.DialogRules[matched[0]].Then
	for _, i := range matched[1:] {
		if r := p.DialogRules[i].Then; r != then {
			return deny(RuleDialog, "%s dismissed: dialogs.rules[%d] (%s) and dialogs.rules[%d] (%s) both match it and disagree",
				what, matched[0], then, i, r)
		}
	}
	return dialogDecision(then, what, "by "+ruleList(matched))
}

// matchDialogRules returns the indexes of the rules that match d.
func (p *Policy) matchDialogRules(d Dialog) []int {
	plain, compact := NormalizeText(d.Message), CompactText(d.Message)
	var out []int
	for i, r := range p.DialogRules {
		if !r.Text.MatchString(plain) && !r.Text.MatchString(compact) {
			continue
		}
		if r.After != nil && !r.After.matches(d.Opener) {
			continue
		}
		out = append(out, i)
	}
	return out
}

// matches reports whether the action's target t is the opener's element.
func (o *DialogOpener) matches(t *Target) bool {
	if t == nil {
		return false
	}
	if o.Role != "" && !strings.EqualFold(o.Role, t.Role) {
		return false
	}
	return o.Name == nil || o.Name.MatchString(NormalizeText(t.Name))
}

// dialogDecision is the decision a setting gives a dialog.
func dialogDecision(s Setting, what, by string) Decision {
	switch s {
	case Accept:
		return Decision{Allow: true, Rule: RuleAllowed, Reason: fmt.Sprintf("%s accepted %s", what, by)}
	case Ask:
		return Decision{Ask: true, Rule: RuleDialog, Reason: fmt.Sprintf("%s: a person must approve it (%s)", what, strings.TrimPrefix(by, "by "))}
	}
	return deny(RuleDialog, "%s dismissed %s", what, by)
}

func dialogType(t string) string {
	if t == "" {
		return "a"
	}
	return t
}

func ruleList(idx []int) string {
	s := make([]string, len(idx))
	for i, x := range idx {
		s[i] = fmt.Sprintf("dialogs.rules[%d]", x)
	}
	return strings.Join(s, " and ")
}

// dialogs decodes the dialogs field: a setting (dismiss_and_log | accept | ask, the default for
// every dialog) or a mapping {default, rules}.
func (d *decoder) dialogs(n *yaml.Node, field string, p *Policy) {
	if n = userfile.Deref(n); n.Kind != yaml.MappingNode {
		if s, ok := d.enum(n, field, dialogSettings...); ok {
			p.Dialogs = Setting(s)
		}
		return
	}
	d.mapping(n, field, handlers{
		"default": func(v *yaml.Node, f string) {
			if s, ok := d.enum(v, f, dialogSettings...); ok {
				p.Dialogs = Setting(s)
			}
		},
		"rules": func(v *yaml.Node, f string) { p.DialogRules, _ = list(d, v, f, d.dialogRule) },
	})
}

// dialogRule decodes one entry of dialogs.rules; text and then are required.
func (d *decoder) dialogRule(n *yaml.Node, field string) (DialogRule, bool) {
	var r DialogRule
	valid := true
	seen := d.mapping(n, field, handlers{
		"text": func(v *yaml.Node, f string) {
			var ok bool
			r.Text, ok = d.pattern(v, f)
			valid = valid && ok
		},
		"after": func(v *yaml.Node, f string) {
			var ok bool
			r.After, ok = d.dialogOpener(v, f)
			valid = valid && ok
		},
		"then": func(v *yaml.Node, f string) {
			s, ok := d.enum(v, f, dialogSettings...)
			r.Then = Setting(s)
			valid = valid && ok
		},
	})
	if seen == nil {
		return r, false
	}
	return r, d.Require(n, field, seen, "text", "then") && valid
}

// dialogOpener decodes a rule's after: {role, name}, at least one of them.
func (d *decoder) dialogOpener(n *yaml.Node, field string) (*DialogOpener, bool) {
	o := &DialogOpener{}
	valid := true
	seen := d.mapping(n, field, handlers{
		"role": func(v *yaml.Node, f string) {
			var ok bool
			o.Role, ok = d.nonEmptyStr(v, f)
			valid = valid && ok
		},
		"name": func(v *yaml.Node, f string) {
			var ok bool
			o.Name, ok = d.pattern(v, f)
			valid = valid && ok
		},
	})
	if seen == nil {
		return nil, false
	}
	if len(seen) == 0 {
		d.Fail(n, field, CodeEmpty, "after names the element of the action that opens the dialog: give its role, its name or both")
		return nil, false
	}
	return o, valid
}

// docDialogs is the dialogs field as Marshal writes it: the setting alone when there are no rules
// (the form every policy written before rules existed uses), else {default, rules}.
type docDialogs struct {
	Default Setting         `yaml:"default"`
	Rules   []docDialogRule `yaml:"rules"`
}

type docDialogRule struct {
	Text  string           `yaml:"text"`
	After *docDialogOpener `yaml:"after,omitempty"`
	Then  Setting          `yaml:"then"`
}

type docDialogOpener struct {
	Role string `yaml:"role,omitempty"`
	Name string `yaml:"name,omitempty"`
}

// MarshalYAML writes the scalar form when there are no rules.
func (d docDialogs) MarshalYAML() (any, error) {
	if len(d.Rules) == 0 {
		return d.Default, nil
	}
	type plain docDialogs // no MarshalYAML: the mapping
	return plain(d), nil
}

// dialogsDoc is p's dialogs field for Marshal.
func dialogsDoc(p *Policy) (docDialogs, error) {
	out := docDialogs{Default: p.Dialogs}
	for i, r := range p.DialogRules {
		if r.Text == nil {
			return out, fmt.Errorf("dialogs.rules[%d].text: nil pattern", i)
		}
		dr := docDialogRule{Text: r.Text.Source, Then: r.Then}
		if r.After != nil {
			dr.After = &docDialogOpener{Role: r.After.Role}
			if r.After.Name != nil {
				dr.After.Name = r.After.Name.Source
			}
			if *dr.After == (docDialogOpener{}) {
				return out, fmt.Errorf("dialogs.rules[%d].after: neither role nor name", i)
			}
		}
		out.Rules = append(out.Rules, dr)
	}
	return out, nil
}

// dialogsSummary is the dialogs part of Summary: the default, then each rule on a line of its own.
func (p *Policy) dialogsSummary(line func(string, ...any)) {
	if len(p.DialogRules) == 0 {
		return
	}
	line("dialog rules (default %s; two that match and disagree dismiss):", p.Dialogs)
	for i, r := range p.DialogRules {
		after := "after any action or none"
		if o := r.After; o != nil {
			role, name := o.Role, "any name"
			if role == "" {
				role = "any element"
			}
			if o.Name != nil {
				name = fmt.Sprintf("name %q", o.Name.Source)
			}
			after = fmt.Sprintf("after an action on %s, %s", role, name)
		}
		line("  [%d] text %q %s: %s", i, r.Text.String(), after, r.Then)
	}
}
