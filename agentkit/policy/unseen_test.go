package policy

import "testing"

type unseenCase struct {
	name string
	req  Request
	rule Rule
}

func unseenCases() []unseenCase {
	return []unseenCase{
		{"prerender of a denied path", Request{Method: "GET", URL: portal + "/admin", Navigation: true}, RuleDenyPath},
		{"beacon to an outside host", Request{Method: "POST", URL: "http://evil.example.test/bp"}, RuleHostNotAllowed},
		{"prefetch of an allowed path", Request{Method: "GET", URL: portal + "/pratiche/3", Navigation: true}, RuleUnseenChannel},
	}
}

func TestDecideUnseenNeverAllows(t *testing.T) {
	ps := policies(t)
	for _, c := range unseenCases() {
		t.Run(c.name, func(t *testing.T) {
			checkDecision(t, ps["reference"].DecideUnseen(c.req), c.rule, "")
		})
	}
}
