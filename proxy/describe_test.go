package proxy

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/trapline/trapline/agentkit/policy"
)

// TestRequestsAreJudgedAsWhatTheyDo: through the proxy with the reference policy, a read that says
// it is a DELETE (override header or _method) and a GraphQL mutation sent as a GET are refused,
// and never reach the portal (issue 28.11).
func TestRequestsAreJudgedAsWhatTheyDo(t *testing.T) {
	pol, err := policy.Load(referencePolicy)
	if err != nil {
		t.Fatal(err)
	}
	w := newWorld(t)
	p := startProxy(t, Config{Rules: pol, Hosts: w.hosts})
	client := proxiedClient(t, p)
	mutation := url.Values{"query": {"mutation ArchiviaPratica { archivia(id: 1) { id } }"}, "operationName": {"GetPratica"}}.Encode()
	for _, tc := range []struct {
		name, method, url, header, value string
		rule                             policy.Rule
	}{
		{"X-HTTP-Method-Override", "GET", "http://portale.interno.test/pratiche/1", "X-HTTP-Method-Override", "DELETE", policy.RuleWriteNotAllowed},
		{"X-HTTP-Method", "GET", "http://portale.interno.test/pratiche/1", "X-HTTP-Method", "DELETE", policy.RuleWriteNotAllowed},
		{"X-Method-Override", "GET", "http://portale.interno.test/pratiche/1", "X-Method-Override", "DELETE", policy.RuleWriteNotAllowed},
		{"_method in the query", "GET", "http://portale.interno.test/pratiche/1?_method=DELETE", "", "", policy.RuleWriteNotAllowed},
		{"GraphQL mutation over GET", "GET", "http://portale.interno.test/pratiche/graphql?" + mutation, "", "", policy.RuleWriteNotAllowed},
		{"the plain read", "GET", "http://portale.interno.test/pratiche/1", "", "", policy.RuleAllowed},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := len(w.portal.received())
			req := newRequest(t, tc.method, tc.url, nil)
			if tc.header != "" {
				req.Header.Set(tc.header, tc.value)
			}
			resp, body := send(t, client, req)
			reached := len(w.portal.received()) - before
			if tc.rule == policy.RuleAllowed {
				if resp.StatusCode != http.StatusOK || reached != 1 {
					t.Errorf("%d %q, portal reached %d times: want 200 and one hit", resp.StatusCode, body, reached)
				}
				return
			}
			if resp.StatusCode != http.StatusForbidden || resp.Header.Get(RuleHeader) != string(tc.rule) || reached != 0 {
				t.Errorf("%d %s=%q %q, portal reached %d times: want 403 %s and no hit", resp.StatusCode, RuleHeader, resp.Header.Get(RuleHeader), strings.TrimSpace(string(body)), reached, tc.rule)
			}
		})
	}
}
