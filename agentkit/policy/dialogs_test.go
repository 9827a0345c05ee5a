package policy

import (
	"errors"
	"strings"
	"testing"
)

// dialogRules is the example: the save's own confirmation is accepted after "Salva", and
// every "are you sure" asks a person.
const dialogRules = minimal + `dialogs:
  default: dismiss_and_log
  rules:
    - {text: "(?i)confermi il salvataggio", after: {role: button, name: "(?i)^salva$"}, then: accept}
    - {text: "(?i)sei sicuro", then: ask}
`

func TestDialogsScalarFormIsTheDefault(t *testing.T) {
	for _, s := range []Setting{DismissAndLog, Accept, Ask} {
		p := mustParse(t, minimal+"dialogs: "+string(s)+"\n")
		if p.Dialogs != s || len(p.DialogRules) != 0 {
			t.Errorf("dialogs: %s loaded as default %s with %d rules", s, p.Dialogs, len(p.DialogRules))
		}
	}
	// The seeds' example keeps its scalar and means what it meant: every dialog dismissed.
	p := mustLoad(t, "browser-agent-policy.yml")
	if d := p.DecideDialog(Dialog{Type: "confirm", Message: "Sei sicuro?"}); d.Allow || d.Ask || d.Rule != RuleDialog {
		t.Errorf("the seeds' policy on a confirm: %+v, want dismissed (rule dialog)", d)
	}
}

func TestDecideDialog(t *testing.T) {
	p := mustParse(t, dialogRules)
	salva := &Target{Role: "button", Name: "Salva"}
	cases := []struct {
		name   string
		dialog Dialog
		want   string // accept, ask or dismiss
		reason string // a part of the reason
	}{
		{"the save's confirmation after Salva", Dialog{"confirm", "Confermi il salvataggio?", salva}, "accept", "dialogs.rules[0]"},
		{"the same text after another action", Dialog{"confirm", "Confermi il salvataggio?", &Target{Role: "button", Name: "Aggiorna elenco"}}, "dismiss", "default"},
		{"the same text with no action", Dialog{"confirm", "Confermi il salvataggio?", nil}, "dismiss", "default"},
		{"the same text after a link named Salva", Dialog{"confirm", "Confermi il salvataggio?", &Target{Role: "link", Name: "Salva"}}, "dismiss", "default"},
		{"Salva's name in another spelling", Dialog{"confirm", "CONFERMI IL SALVATAGGIO", &Target{Role: "Button", Name: "SALVA"}}, "accept", "dialogs.rules[0]"},
		{"are you sure asks", Dialog{"confirm", "Sei sicuro di voler eliminare?", nil}, "ask", "dialogs.rules[1]"},
		{"are you sure after Salva asks", Dialog{"confirm", "Sei sicuro di voler eliminare?", salva}, "ask", "dialogs.rules[1]"},
		{"are you sure in look-alikes", Dialog{"confirm", "Sei sіcuro?", nil}, "ask", "dialogs.rules[1]"}, // Cyrillic і
		{"are you sure split by dashes", Dialog{"confirm", "Sei si-cu-ro?", nil}, "ask", "dialogs.rules[1]"},
		{"are you sure in both spellings", Dialog{"confirm", "Sei sі-curo?", nil}, "ask", "dialogs.rules[1]"},
		{"both texts: the rules disagree", Dialog{"confirm", "Confermi il salvataggio? Sei sicuro di voler eliminare le altre?", salva}, "dismiss", "disagree"},
		{"no rule matches", Dialog{"alert", "Benvenuto", nil}, "dismiss", "default"},
		{"a message too long to read", Dialog{"confirm", "Confermi il salvataggio?" + strings.Repeat(" ", MaxDialogMessage), salva}, "dismiss", "MaxDialogMessage"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			d := p.DecideDialog(c.dialog)
			got := "dismiss"
			switch {
			case d.Allow:
				got = "accept"
			case d.Ask:
				got = "ask"
			}
			if got != c.want || !strings.Contains(d.Reason, c.reason) {
				t.Errorf("got %s (%+v), want %s with %q in the reason", got, d, c.want, c.reason)
			}
			if !d.Allow && d.Rule != RuleDialog {
				t.Errorf("a dialog not accepted has rule %s, want %s", d.Rule, RuleDialog)
			}
		})
	}
}

func TestDialogRulesThatAgreeDecide(t *testing.T) {
	p := mustParse(t, minimal+`dialogs:
  default: accept
  rules:
    - {text: sicuro, then: dismiss_and_log}
    - {text: eliminare, then: dismiss_and_log}
`)
	if d := p.DecideDialog(Dialog{Type: "confirm", Message: "Sei sicuro di voler eliminare?"}); d.Allow || d.Ask || !strings.Contains(d.Reason, "dialogs.rules[0] and dialogs.rules[1]") {
		t.Errorf("two rules that agree: %+v, want dismissed by both", d)
	}
	if d := p.DecideDialog(Dialog{Type: "alert", Message: "Salvato"}); !d.Allow {
		t.Errorf("no rule, default accept: %+v", d)
	}
}

func TestDialogsErrors(t *testing.T) {
	type want struct {
		line  int
		field string
		code  Code
	}
	cases := []struct {
		name string
		yml  string
		want want
	}{
		{"scalar of another field", "dialogs: block\n", want{6, "dialogs", CodeUnknownValue}},
		{"a list", "dialogs: [accept]\n", want{6, "dialogs", CodeWrongType}},
		{"unknown key", "dialogs:\n  default: accept\n  rule: []\n", want{8, "dialogs.rule", CodeUnknownKey}},
		{"unknown default", "dialogs:\n  default: maybe\n", want{7, "dialogs.default", CodeUnknownValue}},
		{"rules not a list", "dialogs:\n  rules: {text: x, then: ask}\n", want{7, "dialogs.rules", CodeWrongType}},
		{"missing text", "dialogs:\n  rules:\n    - {then: ask}\n", want{8, "dialogs.rules[0].text", CodeMissing}},
		{"missing then", "dialogs:\n  rules:\n    - {text: x}\n", want{8, "dialogs.rules[0].then", CodeMissing}},
		{"unknown then", "dialogs:\n  rules:\n    - {text: x, then: allow}\n", want{8, "dialogs.rules[0].then", CodeUnknownValue}},
		{"bad text regex", "dialogs:\n  rules:\n    - {text: \"(\", then: ask}\n", want{8, "dialogs.rules[0].text", CodeInvalidRegex}},
		{"unknown rule key", "dialogs:\n  rules:\n    - {text: x, then: ask, page: /}\n", want{8, "dialogs.rules[0].page", CodeUnknownKey}},
		{"empty after", "dialogs:\n  rules:\n    - {text: x, then: ask, after: {}}\n", want{8, "dialogs.rules[0].after", CodeEmpty}},
		{"after unknown key", "dialogs:\n  rules:\n    - text: x\n      then: ask\n      after: {role: button, label: Salva}\n", want{10, "dialogs.rules[0].after.label", CodeUnknownKey}},
		{"after bad name", "dialogs:\n  rules:\n    - text: x\n      then: ask\n      after: {name: \"[\"}\n", want{10, "dialogs.rules[0].after.name", CodeInvalidRegex}},
		{"after empty role", "dialogs:\n  rules:\n    - {text: x, then: ask, after: {role: \"\"}}\n", want{8, "dialogs.rules[0].after.role", CodeEmpty}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p, err := Parse("policies/x.yml", []byte(minimal+c.yml))
			var errs Errors
			if p != nil || !errors.As(err, &errs) || len(errs) != 1 {
				t.Fatalf("got policy %v, error %v; want one error", p != nil, err)
			}
			e := errs[0]
			if e.Line != c.want.line || e.Field != c.want.field || e.Code != c.want.code || e.File != "policies/x.yml" {
				t.Errorf("got {%d %q %q}, want %+v: %v", e.Line, e.Field, e.Code, c.want, e)
			}
			if !strings.HasPrefix(e.Error(), "policies/x.yml:") {
				t.Errorf("error %q does not start with the file and line", e)
			}
		})
	}
}

func TestDialogRulesRoundTripAndPatch(t *testing.T) {
	p := mustParse(t, dialogRules)
	roundTrip(t, "dialog rules", p)
	q, b := marshalParse(t, "dialog rules", p)
	if len(q.DialogRules) != 2 || q.DialogRules[0].After == nil || q.DialogRules[0].After.Name.Source != "(?i)^salva$" {
		t.Fatalf("rules after a round trip: %+v\n%s", q.DialogRules, b)
	}
	// Without rules, the scalar form every older policy uses.
	_, b = marshalParse(t, "no rules", mustParse(t, minimal+"dialogs: accept\n"))
	if !strings.Contains(string(b), "dialogs: accept\n") {
		t.Errorf("no rules marshalled as\n%s", b)
	}
	// A pack's policy_patch replaces the scalar with rules.
	ref := mustLoad(t, "reference.yml")
	patched, err := Patch(ref, []byte("dialogs: {default: dismiss_and_log, rules: [{text: sicuro, then: ask}]}\n"), "patched")
	if err != nil {
		t.Fatal(err)
	}
	if len(patched.DialogRules) != 1 || patched.DialogRules[0].Then != Ask || len(ref.DialogRules) != 0 {
		t.Errorf("patched rules %+v, reference's %+v", patched.DialogRules, ref.DialogRules)
	}
}

func TestDialogRulesInSummaryAndClone(t *testing.T) {
	p := mustParse(t, dialogRules)
	s := p.Summary()
	for _, w := range []string{"dialog rules (default dismiss_and_log", `[0] text "(?i)confermi il salvataggio" after an action on button, name "(?i)^salva$": accept`,
		`[1] text "(?i)sei sicuro" after any action or none: ask`} {
		if !strings.Contains(s, w) {
			t.Errorf("summary lacks %q:\n%s", w, s)
		}
	}
	c := p.Clone()
	c.DialogRules[0].Then = Ask
	c.DialogRules[0].After.Role = "link"
	if p.DialogRules[0].Then != Accept || p.DialogRules[0].After.Role != "button" {
		t.Errorf("changing the clone's rules changed the original: %+v", p.DialogRules[0])
	}
}

// FuzzDecideDialog: whatever the message and the opener, a dialog whose message reads "sei sicuro"
// (in either reading) is never accepted under the example rules, and one accepted was opened by
// "Salva" and reads "confermi il salvataggio".
func FuzzDecideDialog(f *testing.F) {
	p := mustParse(f, dialogRules)
	for _, s := range []string{"Confermi il salvataggio?", "Sei sicuro?", "Confermi il salvataggio? Sei sicuro?", "Sei sі-curo", ""} {
		f.Add(s, "button", "Salva")
		f.Add(s, "link", "Elimina")
	}
	f.Fuzz(func(t *testing.T, msg, role, name string) {
		d := p.DecideDialog(Dialog{Type: "confirm", Message: msg, Opener: &Target{Role: role, Name: name}})
		plain, compact := NormalizeText(msg), CompactText(msg)
		if !d.Allow {
			return
		}
		if strings.Contains(plain, "sei sicuro") || strings.Contains(compact, "sei sicuro") {
			t.Fatalf("accepted %q, which reads sei sicuro: %+v", msg, d)
		}
		if !strings.EqualFold(role, "button") || NormalizeText(name) != "salva" ||
			!(strings.Contains(plain, "confermi il salvataggio") || strings.Contains(compact, "confermi il salvataggio")) {
			t.Fatalf("accepted %q opened by %s %q: %+v", msg, role, name, d)
		}
	})
}
