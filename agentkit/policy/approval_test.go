package policy

import (
	"errors"
	"strings"
	"testing"
)

// approvalPolicy asks a person for payments: the money words, the payment write, every press.
const approvalPolicy = `version: 1
navigation:
  allow:
    - host: portale.interno.test
      paths: ["^/"]
actions:
  deny_words:
    money: [paga, pay]
    destructive: [elimin]
  writes:
    - {method: POST, path: "^/pratiche/[0-9]+/stato$"}
    - {method: POST, path: "^/pratiche/[0-9]+/pagamento$"}
  require_approval:
    categories: [money]
    writes: [{method: POST, path: "^/pratiche/[0-9]+/pagamento$"}]
    kinds: [press]
`

// require_approval yields the third decision, Ask: not allowed, not plainly denied.
func TestDecideAsks(t *testing.T) {
	p := mustParse(t, approvalPolicy)
	const page = portal + "/pratiche/7"
	cases := []struct {
		name string
		in   Input
		ask  bool
		rule Rule
	}{
		{"a money word asks", Input{Kind: KindClick, Page: page, Target: button("Paga ora")}, true, RuleNeedsApproval},
		{"a money word in the visible text asks", Input{Kind: KindClick, Page: page, Target: &Target{Role: "button", Name: "Conferma", Facts: &Facts{VisibleText: "Paga ora"}}}, true, RuleNeedsApproval},
		{"a destructive word still denies", Input{Kind: KindClick, Page: page, Target: button("Elimina")}, false, RuleDenyWord},
		{"the payment write asks", Input{Kind: KindClick, Page: page, Target: &Target{Role: "button", Name: "Conferma",
			Facts: &Facts{Submit: &Submission{Method: "POST", URL: page + "/pagamento"}}}}, true, RuleNeedsApproval},
		{"the status write is allowed", Input{Kind: KindClick, Page: page, Target: &Target{Role: "button", Name: "Salva",
			Facts: &Facts{Submit: &Submission{Method: "POST", URL: page + "/stato"}}}}, false, RuleAllowed},
		{"a press asks", Input{Kind: KindPress, Page: page, Target: &Target{Role: "textbox", Name: "Note"}}, true, RuleNeedsApproval},
		{"budgets first", Input{Kind: KindPress, Page: page, Target: &Target{Role: "textbox", Name: "Note"}, Usage: Usage{Actions: 99}}, false, RuleBudgetActions},
	}
	for _, c := range cases {
		d := p.Decide(c.in)
		if d.Ask != c.ask || d.Rule != c.rule || (d.Ask && d.Allow) {
			t.Errorf("%s: %+v, want ask=%v rule %s", c.name, d, c.ask, c.rule)
		}
	}
	// Clone keeps the approval lists, as copies.
	c := p.Clone()
	c.Actions.RequireApproval.Categories[0] = "other"
	if p.Actions.RequireApproval.Categories[0] != "money" {
		t.Error("Clone shares require_approval.categories")
	}
}

func TestApprovalSchemaErrors(t *testing.T) {
	bad := strings.Replace(approvalPolicy, "kinds: [press]", "kinds: [drag]", 1)
	_, err := Parse("x.yml", []byte(bad))
	var e *Error
	if !errors.As(err, &e) || e.Field != "actions.require_approval.kinds[0]" || !errors.Is(err, CodeUnknownValue) {
		t.Fatalf("Parse = %v, want an unknown value at actions.require_approval.kinds[0]", err)
	}
}

func TestApprovalRoundTrips(t *testing.T) {
	p := mustParse(t, approvalPolicy)
	q, _ := marshalParse(t, "again.yml", p)
	if d := q.Decide(Input{Kind: KindClick, Page: portal + "/pratiche/7", Target: button("Paga ora")}); !d.Ask {
		t.Errorf("after Marshal and Parse: %+v, want ask", d)
	}
}
