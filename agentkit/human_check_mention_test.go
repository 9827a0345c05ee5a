package agentkit_test

import (
	"context"
	"testing"

	"github.com/trapline/trapline/agentkit"
	"github.com/trapline/trapline/agentkit/action"
	"github.com/trapline/trapline/agentkit/observe"
	"github.com/trapline/trapline/agentkit/planner"
	"github.com/trapline/trapline/agentkit/policy"
	"github.com/trapline/trapline/internal/agenttest"
)

// countingDriver is fakeDriver whose observations carry the browser edge's counts of one-character
// inputs and inputs marked for a one-time code.
type countingDriver struct {
	fakeDriver
	boxes, marked int
}

func (d *countingDriver) Observe(ctx context.Context) (*observe.Observation, error) {
	o, err := d.fakeDriver.Observe(ctx)
	if o != nil {
		o.CodeBoxes, o.CodeInputs = d.boxes, d.marked
	}
	return o, err
}

// humanRule runs one turn on a page and returns the rule that stopped it ("" when none did).
func humanRule(t *testing.T, d agentkit.Driver) policy.Rule {
	t.Helper()
	pl := planner.Func(func(context.Context, planner.Input) (action.Action, error) {
		return action.Action{Kind: action.Done}, nil
	})
	res, _ := run(t, agenttest.ReferencePolicy(t, nil), pl, d)
	switch policy.Rule(res.Reason) {
	case agentkit.RuleHumanCheck, agentkit.RuleOneTimeCode:
		return policy.Rule(res.Reason)
	}
	return ""
}

// A page that talks about CAPTCHAs (a FAQ, a negation, a quotation, a question) is not a human check;
// one that asks for one (its frame, its checkbox, its input, an instruction) is, and so is a question
// that is itself the check ("Sei un robot?").
func TestACaptchaMentionIsNoHumanCheck(t *testing.T) {
	cases := []struct {
		name, raw string
		check     bool
	}{
		{"negation", "- paragraph [ref=e1]: Non usiamo CAPTCHA: il modulo è protetto in altro modo.\n- textbox \"Nome\" [ref=e2]\n- button \"Invia\" [ref=e3]", false},
		{"english negation", "- paragraph [ref=e1]: We never show a CAPTCHA to our customers.\n- button \"Continue\" [ref=e2]", false},
		{"without", "- text: Accesso senza captcha\n- button \"Entra\" [ref=e1]", false},
		{"faq question", "- heading \"FAQ: cos'è un captcha?\" [level=2] [ref=e1]\n- button \"Salva\" [ref=e2]", false},
		{"faq page answer", "- heading \"Domande frequenti\" [level=1] [ref=e1]\n- heading \"Perché vedo un CAPTCHA?\" [level=2] [ref=e2]\n- paragraph [ref=e3]: Un CAPTCHA è un test che distingue le persone dai programmi.\n- searchbox \"Cerca\" [ref=e4]", false},
		{"quotation", "- paragraph [ref=e1]: Diffida dei messaggi «verifica di essere umano» che chiedono la password.\n- button \"Salva\" [ref=e2]", false},
		{"straight quotes", "- paragraph [ref=e1]: Il testo \"Non sono un robot\" non compare mai qui.\n- button \"Salva\" [ref=e2]", false},
		{"instruction", "- paragraph [ref=e1]: Completa il CAPTCHA per continuare.\n- textbox \"Testo\" [ref=e2]", true},
		{"question that is the check", "- paragraph [ref=e1]: Sei un robot?\n- checkbox \"Verifica\" [ref=e2]", true},
		{"checkbox on a faq page", "- heading \"FAQ\" [level=1] [ref=e1]\n- checkbox \"Non sono un robot\" [ref=e2]", true},
		{"captcha frame on a page that denies it", "- paragraph [ref=e1]: Non usiamo CAPTCHA.\n- iframe \"reCAPTCHA\" [ref=e2]", true},
		{"a negation of something else", "- paragraph [ref=e1]: Non chiudere la pagina: verifica di essere umano.\n- checkbox \"Verifica\" [ref=e2]", true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := humanRule(t, &fakeDriver{Page: agenttest.Page{Snapshot: c.raw}})
			if c.check && got != agentkit.RuleHumanCheck {
				t.Fatalf("a human check did not stop the run (rule %q)", got)
			}
			if !c.check && got != "" {
				t.Fatalf("a mention of a CAPTCHA stopped the run (%s)", got)
			}
		})
	}
}

// A code split into one-character boxes, or an input marked autocomplete="one-time-code", is a
// one-time-code prompt with no phrase next to it; three boxes (a date's day, month, year) are not.
func TestCodeBoxesAreAOneTimeCodePrompt(t *testing.T) {
	const raw = "- heading \"Accesso\" [level=1] [ref=e1]\n- textbox [ref=e2]\n- textbox [ref=e3]\n- textbox [ref=e4]\n- textbox [ref=e5]\n- textbox [ref=e6]\n- textbox [ref=e7]\n- button \"Continua\" [ref=e8]"
	for _, c := range []struct {
		name          string
		boxes, marked int
		want          policy.Rule
	}{
		{"six boxes", 6, 0, agentkit.RuleOneTimeCode},
		{"four boxes", 4, 0, agentkit.RuleOneTimeCode},
		{"one marked input", 0, 1, agentkit.RuleOneTimeCode},
		{"three boxes", 3, 0, ""},
		{"no boxes", 0, 0, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			d := &countingDriver{fakeDriver: fakeDriver{Page: agenttest.Page{Snapshot: raw}}, boxes: c.boxes, marked: c.marked}
			if got := humanRule(t, d); got != c.want {
				t.Fatalf("rule %q, want %q", got, c.want)
			}
		})
	}
}
