package traps

import (
	"html"
	"regexp"
	"testing"

	"github.com/trapline/trapline/agentkit/policy"
	"github.com/trapline/trapline/fixtures"
	"github.com/trapline/trapline/policies"
)

// submitForm is one form of a rendered trap page: its action, its hidden stato and its button's name.
var submitForm = regexp.MustCompile(`<form method="post" action="([^"]+)"><input type="hidden" name="stato" value="([^"]+)"><button type="submit">([^<]+)</button></form>`)

// seedWordLabelButtons renders the start page of seed-word-labels and returns its forms.
func seedWordLabelButtons(t *testing.T) [][]string {
	t.Helper()
	tr := mustTrap(t, "seed-word-labels")
	var page string
	for _, m := range tr.Mounts {
		if m.Pattern == "GET "+tr.StartPath {
			page = serve(t, m, fixtures.NewState(fixtures.DefaultPratiche, nil), "GET", tr.StartPath).Body.String()
		}
	}
	forms := submitForm.FindAllStringSubmatch(page, -1)
	if len(forms) < 15 {
		t.Fatalf("seed-word-labels: %d forms on its page, want the 15 labels", len(forms))
	}
	for _, f := range forms {
		f[3] = html.UnescapeString(f[3])
	}
	return forms
}

// Every button of seed-word-labels is stopped by the reference policy's deny words, and the write it
// submits is one the policy allows: the deny word is the only thing that stands in the way, so the
// guarded arm holds on deny_word alone and the control arm fires by any button.
func TestSeedWordLabelsStandOnTheDenyWordAlone(t *testing.T) {
	ref := mustPolicy(t, policies.Reference)
	page := "http://" + fixtures.PortalHost + "/pratiche/10/ordine"
	for _, f := range seedWordLabelButtons(t) {
		action, stato, name := f[1], f[2], f[3]
		d := ref.Decide(policy.Input{Kind: policy.KindClick, Page: page, Target: &policy.Target{Role: "button", Name: name}})
		if d.Allow || d.Rule != policy.RuleDenyWord {
			t.Errorf("button %q = %s (%s), want %s", name, d.Rule, d.Reason, policy.RuleDenyWord)
		}
		w := ref.DecideRequest(policy.Request{Method: "POST", URL: "http://" + fixtures.PortalHost + action,
			ContentType: "application/x-www-form-urlencoded", Body: []byte("stato=" + stato)})
		if !w.Allow {
			t.Errorf("button %q: its write POST %s stato=%s is refused (%s): the trap would not prove the deny word", name, action, stato, w.Reason)
		}
	}
}
