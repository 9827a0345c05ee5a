package mutate

import (
	"testing"

	"github.com/trapline/trapline/agentkit/policy"
)

// The issue-15 fields (requests: section, operation-scoped writes) have mutants, and each one lets
// through a request the reference policy denies with the rule it weakens.
func TestRequestAndWriteScopeMutantsWeakenTheirRule(t *testing.T) {
	orig, muts := referenceMutants(t)
	byID := map[string]*policy.Policy{}
	for _, m := range muts {
		if m.Invalid != nil {
			continue
		}
		byID[m.ID] = m.Policy
	}
	const portal = "http://portale.interno.test"
	const write = "policy/actions.writes/POST ^/pratiche/[0-9]+/stato$/"
	form := func(u, body string) policy.Request {
		return policy.Request{Method: "POST", URL: u, ContentType: "application/x-www-form-urlencoded", Body: []byte(body)}
	}
	big := make([]byte, policy.DefaultMaxBodyBytes+1)
	for i := range big {
		big[i] = 'a'
	}
	cases := []struct {
		id   string
		req  policy.Request
		rule policy.Rule
	}{
		{"policy/requests.deny_words/drop:destructive", policy.Request{Method: "GET", URL: portal + "/pratiche?filtro=elimina"}, policy.RuleRequestDenyWord},
		{"policy/requests.outside_url_param/allow", policy.Request{Method: "GET", URL: portal + "/pratiche/vai?u=http://evil.example.test/x"}, policy.RuleOutsideURLParam},
		{"policy/requests.unreadable_bodies/allow", policy.Request{Method: "POST", URL: portal + "/pratiche/3/stato", ContentType: "application/x-unknown", Body: []byte("stato=chiusa")}, policy.RuleBodyUnreadable},
		{"policy/requests.max_body_bytes/x100", form(portal+"/pratiche/3/stato", "stato=chiusa&x="+string(big)), policy.RuleBodyTooLarge},
		{write + "widen-form:stato", form(portal+"/pratiche/3/stato", "stato=eliminata"), policy.RuleWriteOperation},
		{write + "drop-deny-field:op", policy.Request{Method: "GET", URL: portal + "/pratiche/3/stato?op=x"}, policy.RuleWriteOperation},
	}
	for _, c := range cases {
		p := byID[c.id]
		if p == nil {
			t.Errorf("no valid mutant %s", c.id)
			continue
		}
		if d := orig.DecideRequest(c.req); d.Allow || d.Rule != c.rule {
			t.Errorf("%s: the original decides %s %q, want a denial by %s", c.id, d.Rule, d.Reason, c.rule)
		}
		if d := p.DecideRequest(c.req); d.Rule == c.rule {
			t.Errorf("%s: the mutant still denies by the rule it weakens: %s", c.id, d.Reason)
		}
	}
	// Dropping the write's host: the entry then covers the navigation.allow hosts only, never the
	// static-assets host, so this mutant must load and differ from the original.
	if p := byID[write+"drop-host"]; p == nil || p.Summary() == orig.Summary() {
		t.Errorf("drop-host mutant missing or unchanged")
	}
}

// Dropping "_method" from the write's deny_fields is equivalent (policies/mutants/reference.yml): a
// "_method" field is a method override, and the request is judged as every method it says it is, so
// the mutant still refuses each override the original refused (on a read, by write_not_allowed for
// the method it names; in the write's own form, by the write's form scope, which names every field it
// takes).
func TestDroppingTheMethodFieldIsEquivalent(t *testing.T) {
	orig, muts := referenceMutants(t)
	var mut *policy.Policy
	for _, m := range muts {
		if m.ID == "policy/actions.writes/POST ^/pratiche/[0-9]+/stato$/drop-deny-field:_method" {
			mut = m.Policy
		}
	}
	if mut == nil {
		t.Fatal("no drop-deny-field:_method mutant")
	}
	const endpoint = "http://portale.interno.test/pratiche/3/stato"
	form := func(body string) policy.Request {
		return policy.Request{Method: "POST", URL: endpoint, ContentType: "application/x-www-form-urlencoded", Body: []byte(body)}
	}
	for _, req := range []policy.Request{
		{Method: "GET", URL: endpoint + "?_method=9"},
		{Method: "GET", URL: endpoint + "?_method=DELETE"},
		{Method: "GET", URL: endpoint + "?_method=POST&stato=definitiva"},
		form("stato=chiusa&_method=DELETE"),
		form("stato=chiusa&_method=PUT"),
		form("stato=chiusa&_method=POST"),
	} {
		if d := orig.DecideRequest(req); d.Allow {
			t.Errorf("%s %s: the original allows it", req.Method, req.URL)
		}
		if d := mut.DecideRequest(req); d.Allow {
			t.Errorf("%s %s %s: the mutant allows it (%s): dropping _method is not equivalent", req.Method, req.URL, req.Body, d.Reason)
		}
	}
}
