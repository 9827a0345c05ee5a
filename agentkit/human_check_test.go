package agentkit_test

import (
	"context"
	"testing"

	"github.com/trapline/trapline/agentkit"
	"github.com/trapline/trapline/agentkit/action"
	"github.com/trapline/trapline/agentkit/planner"
	"github.com/trapline/trapline/agentkit/policy"
	"github.com/trapline/trapline/internal/agenttest"
)

// A CAPTCHA page and a one-time-code prompt end the run Inconclusive under their own rule before the
// planner is asked anything: nothing is typed, nothing is clicked. Ordinary portal pages, with a
// "Codice fiscale" field or a "Verifica" button, go on.
func TestHumanCheckAndOneTimeCodeEndInconclusive(t *testing.T) {
	cases := []struct {
		name, raw string
		want      policy.Rule // "" for a page the run goes on with
	}{
		{"reCAPTCHA frame", "- heading \"Accesso\" [level=1] [ref=e1]\n- iframe \"reCAPTCHA\" [ref=e2]\n- button \"Continua\" [ref=e3]", agentkit.RuleHumanCheck},
		{"verify you are human", "- paragraph [ref=e1]: Verify you are human by completing the action below.\n- checkbox \"Verify\" [ref=e2]", agentkit.RuleHumanCheck},
		{"non sono un robot", "- checkbox \"Non sono un robot\" [ref=e1]\n- button \"Prosegui\" [ref=e2]", agentkit.RuleHumanCheck},
		{"captcha textbox", "- img \"Immagine di verifica\" [ref=e1]\n- textbox \"Scrivi il testo del CAPTCHA\" [ref=e2]", agentkit.RuleHumanCheck},
		{"hCaptcha", "- iframe \"Widget containing checkbox for hCaptcha security challenge\" [ref=e1]", agentkit.RuleHumanCheck},
		{"codice monouso", "- textbox \"Codice monouso\" [ref=e1]\n- button \"Conferma\" [ref=e2]", agentkit.RuleOneTimeCode},
		{"one-time code", "- textbox \"One-time code\" [ref=e1]", agentkit.RuleOneTimeCode},
		{"codice SMS", "- spinbutton \"Codice SMS\" [ref=e1]", agentkit.RuleOneTimeCode},
		{"codice OTP", "- textbox \"Codice OTP\" [ref=e1]", agentkit.RuleOneTimeCode},
		{"verification code placeholder", "- textbox \"Code\" [ref=e1]:\n  - /placeholder: Enter the verification code", agentkit.RuleOneTimeCode},
		{"paragraph above a plain field", "- paragraph [ref=e1]: Inserisci il codice monouso che ti abbiamo inviato via SMS.\n- textbox \"Codice\" [ref=e2]\n- button \"Verifica\" [ref=e3]", agentkit.RuleOneTimeCode},
		{"split spelling", "- textbox \"Codice mono\u00aduso\" [ref=e1]", agentkit.RuleOneTimeCode},
		{"ordinary form", "- textbox \"Codice fiscale\" [ref=e1]\n- button \"Verifica il codice fiscale\" [ref=e2]\n- textbox \"Note\" [ref=e3]", ""},
		{"a code mentioned with nowhere to type it", "- paragraph [ref=e1]: Il codice monouso arriva per SMS.\n- button \"Salva\" [ref=e2]", ""},
		{"detail page", "- heading \"Pratica 4\" [level=1] [ref=e1]\n- combobox \"Stato\" [ref=e2]\n- button \"Salva\" [ref=e3]", ""},
		// An admin dashboard's API documentation (PocketBase): a menu entry and a paragraph name OTP,
		// the only input is the sidebar's search box, far from both: no prompt.
		{"a dashboard that documents OTP", "- complementary [ref=e1]:\n  - textbox \"Search collections...\" [ref=e2]\n- complementary [ref=e3]:\n  - generic [ref=e4]:\n    - generic [ref=e5]:\n      - button \"Auth with OTP\" [ref=e6]\n      - paragraph [ref=e7]: Authenticate with a one-time password (OTP).", ""},
		{"a form that asks, nested", "- main [ref=e1]:\n  - form [ref=e2]:\n    - paragraph [ref=e3]: Enter the one-time password we sent you.\n    - group [ref=e4]:\n      - textbox \"Code\" [ref=e5]", agentkit.RuleOneTimeCode},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			d := &fakeDriver{Page: agenttest.Page{Snapshot: c.raw}}
			asked := 0
			pl := planner.Func(func(context.Context, planner.Input) (action.Action, error) {
				asked++
				return action.Action{Kind: action.Done}, nil
			})
			res, vs := run(t, agenttest.ReferencePolicy(t, nil), pl, d)
			if c.want == "" {
				if res.Reason == string(agentkit.RuleHumanCheck) || res.Reason == string(agentkit.RuleOneTimeCode) {
					t.Fatalf("an ordinary page stopped the run: %s (%s)", res.Outcome, res.Reason)
				}
				return
			}
			if res.Outcome != agentkit.Inconclusive || res.Reason != string(c.want) {
				t.Fatalf("outcome %s (%s), want Inconclusive (%s)", res.Outcome, res.Reason, c.want)
			}
			if asked != 0 || len(d.Dispatched) != 0 {
				t.Fatalf("the planner was asked %d times, dispatched %v: the page must stop the run first", asked, d.Dispatched)
			}
			if len(vs) != 1 || vs[0].Rule != c.want || vs[0].Taken != "stopped" {
				t.Fatalf("violations %+v, want one %s, stopped", vs, c.want)
			}
		})
	}
}

// With the credential guard off (a control arm), a CAPTCHA page does not stop the run.
func TestHumanCheckFollowsTheCredentialGuard(t *testing.T) {
	d := &fakeDriver{Page: agenttest.Page{Snapshot: "- checkbox \"Non sono un robot\" [ref=e1]"}}
	pl := planner.Func(func(context.Context, planner.Input) (action.Action, error) {
		return action.Action{Kind: action.Done}, nil
	})
	rec := agenttest.Recorder(t)
	a := &agentkit.Agent{Policy: agenttest.ReferencePolicy(t, nil), Planner: pl, Off: policy.Off(policy.GuardCredentialPrompt)}
	res, _ := a.Run(context.Background(), d, rec, agentkit.Task{StartURL: pageURL})
	if res.Reason == string(agentkit.RuleHumanCheck) {
		t.Fatalf("guard off: the run still stopped on the CAPTCHA (%s)", res.Outcome)
	}
}

// Both rules are registered, in the credentials category, and recorded by the credential guard.
func TestHumanRulesAreRegistered(t *testing.T) {
	for _, r := range []policy.Rule{agentkit.RuleHumanCheck, agentkit.RuleOneTimeCode} {
		info, ok := policy.Info(r)
		if !ok || info.Layer != policy.LayerLoop || info.Category != "credentials" {
			t.Errorf("rule %s: registry entry %+v, %v", r, info, ok)
		}
		found := false
		for _, rr := range policy.GuardCredentialPrompt.Info().Records {
			found = found || rr == r
		}
		if !found {
			t.Errorf("rule %s is not recorded by the credential guard", r)
		}
	}
}
