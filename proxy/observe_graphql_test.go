package proxy

import (
	"net/http"
	"strings"
	"testing"

	"github.com/trapline/trapline/agentkit/policy"
)

// Through the proxy, end to end: under a read-only policy with an operations rule, a GraphQL query
// sent by POST reaches the portal; a mutation to the same endpoint (listed too), and a form POST elsewhere, are
// answered 403 observe_mode and never reach it (issue 52.6d).
func TestObserveModeGraphQLQueryThroughTheProxy(t *testing.T) {
	w := newWorld(t)
	pol, err := policy.Parse("observe.yml", []byte(`version: 1
mode: observe
navigation:
  allow:
    - {host: portale.interno.test, paths: ["^/"]}
actions:
  writes:
    - {method: POST, path: "^/graphql$", operations: ["query pratica", "mutation stato"]}
`))
	if err != nil {
		t.Fatal(err)
	}
	p := startProxy(t, Config{Rules: pol, Hosts: w.hosts})
	client := proxiedClient(t, p)
	for _, c := range []struct {
		name, path, ctype, body string
		status                  int
		rule                    policy.Rule
	}{
		{"listed query", "/graphql", "application/json", `{"query":"{ pratica(id: 4) { stato } }"}`, 200, ""},
		{"mutation", "/graphql", "application/json", `{"query":"mutation { stato(id: 4, stato: \"chiusa\") { id } }"}`, 403, policy.RuleObserveMode},
		{"form post", "/pratiche/4/stato", "application/x-www-form-urlencoded", "stato=chiusa", 403, policy.RuleObserveMode},
	} {
		t.Run(c.name, func(t *testing.T) {
			before := len(w.portal.received())
			resp, err := client.Post("http://portale.interno.test"+c.path, c.ctype, strings.NewReader(c.body))
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != c.status || policy.Rule(resp.Header.Get(RuleHeader)) != c.rule {
				t.Fatalf("status %d rule %q, want %d %q", resp.StatusCode, resp.Header.Get(RuleHeader), c.status, c.rule)
			}
			if reached := len(w.portal.received()) > before; reached != (c.status == http.StatusOK) {
				t.Fatalf("reached the portal: %v, want %v", reached, c.status == http.StatusOK)
			}
		})
	}
}
