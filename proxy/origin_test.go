package proxy

import (
	"testing"

	"github.com/trapline/trapline/agentkit/policy"
)

// Through the proxy, end to end: navigation.allow is by origin (issue 52.6c). An entry with no port
// lets the portal's default port through and refuses the same host on port 8080 (mapped in the
// world, so only the rule stands in the way); an entry naming the port lets that port only.
func TestAllowlistByOriginThroughTheProxy(t *testing.T) {
	w := newWorld(t)
	for _, c := range []struct {
		name, entry, url string
		status           int
		rule             policy.Rule
	}{
		{"default port", "portale.interno.test", "http://portale.interno.test/pratiche", 200, ""},
		{"another port", "portale.interno.test", "http://portale.interno.test:8080/pratiche", 403, policy.RuleHostNotAllowed},
		{"the port named", "portale.interno.test:8080", "http://portale.interno.test:8080/pratiche", 200, ""},
		{"not the port named", "portale.interno.test:8080", "http://portale.interno.test/pratiche", 403, policy.RuleHostNotAllowed},
		{"the scheme named", "http://portale.interno.test", "http://portale.interno.test/pratiche", 200, ""},
		{"not the scheme named", "https://portale.interno.test:8080", "http://portale.interno.test:8080/pratiche", 403, policy.RuleHostNotAllowed},
	} {
		t.Run(c.name, func(t *testing.T) {
			pol, err := policy.Parse("origin.yml", []byte("version: 1\nnavigation:\n  allow:\n    - {host: \""+c.entry+"\", paths: [\"^/\"]}\n"))
			if err != nil {
				t.Fatal(err)
			}
			client := proxiedClient(t, startProxy(t, Config{Rules: pol, Hosts: w.hosts}))
			resp, err := client.Get(c.url)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != c.status || policy.Rule(resp.Header.Get(RuleHeader)) != c.rule {
				t.Fatalf("status %d rule %q, want %d %q", resp.StatusCode, resp.Header.Get(RuleHeader), c.status, c.rule)
			}
		})
	}
}
