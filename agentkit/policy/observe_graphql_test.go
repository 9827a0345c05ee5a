package policy

import "testing"

// observeGraphQL is a read-only policy with the seeds' separate narrow rule: the GraphQL endpoint's
// query pratica, sent by POST. The entry lists a mutation too: observe mode still refuses it.
const observeGraphQL = `version: 1
mode: observe
navigation:
  allow:
    - {host: portale.interno.test, paths: ["^/"]}
actions:
  writes:
    - {method: POST, path: "^/graphql$", operations: ["query pratica", "mutation stato"]}
`

// In mode: observe, a GraphQL query sent by POST passes when an operations rule lists it; a mutation
// (even one the rule lists), a query the rule does not list, a POST elsewhere and a POST under a
// policy with no operations rule stay refused.
func TestObserveModeAllowsAListedGraphQLQueryByPost(t *testing.T) {
	p := mustParse(t, observeGraphQL)
	plain := mustParse(t, "version: 1\nmode: observe\nnavigation:\n  allow:\n    - {host: portale.interno.test, paths: [\"^/\"]}\n")
	gql := func(doc string) Request {
		return Request{Method: "POST", URL: "http://portale.interno.test/graphql", ContentType: "application/json", Body: []byte(doc)}
	}
	for _, c := range []struct {
		name string
		pol  *Policy
		req  Request
		want Rule
	}{
		{"listed query", p, gql(`{"query":"query Leggi { pratica(id: 4) { stato } }"}`), RuleAllowed},
		{"shorthand query", p, gql(`{"query":"{ pratica(id: 4) { stato } }"}`), RuleAllowed},
		{"listed mutation", p, gql(`{"query":"mutation { stato(id: 4, stato: \"chiusa\") { id } }"}`), RuleObserveMode},
		{"query and mutation in one document", p, gql(`{"query":"query A { pratica(id: 4) { id } } mutation B { stato(id: 4) { id } }","operationName":"A"}`), RuleObserveMode},
		{"query not listed", p, gql(`{"query":"{ utenti { email } }"}`), RuleWriteOperation},
		{"no document", p, gql(`{"stato":"chiusa"}`), RuleWriteOperation},
		{"another path", p, Request{Method: "POST", URL: "http://portale.interno.test/pratiche/4/stato", ContentType: "application/x-www-form-urlencoded", Body: []byte("stato=chiusa")}, RuleObserveMode},
		{"no operations rule", plain, gql(`{"query":"{ pratica(id: 4) { stato } }"}`), RuleObserveMode},
	} {
		t.Run(c.name, func(t *testing.T) {
			if d := c.pol.DecideRequest(c.req); d.Rule != c.want {
				t.Fatalf("%s (%s), want %s", d.Rule, d.Reason, c.want)
			}
		})
	}
}
