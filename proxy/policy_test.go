package proxy

import (
	"net/http"
	"testing"

	"github.com/trapline/trapline/agentkit/policy"
)

// referencePolicy is the repository's reference policy, relative to this package.
const referencePolicy = "../policies/reference.yml"

// TestReferencePolicy runs the proxy with the repository's reference policy: a missing file or a
// panicking rule fails it.
func TestReferencePolicy(t *testing.T) {
	pol, err := policy.Load(referencePolicy)
	if err != nil {
		t.Fatalf("load reference policy: %v", err)
	}

	w := newWorld(t)
	p := startProxy(t, Config{Rules: pol, Hosts: w.hosts})
	client := proxiedClient(t, p)
	cases := []struct {
		url        string
		wantStatus int
	}{
		{"http://portale.interno.test/pratiche", http.StatusOK},
		{"http://evil.example.test/collect", http.StatusForbidden},
	}
	for _, tc := range cases {
		req := newRequest(t, "GET", tc.url, nil)
		req.Header.Set("Accept", "text/html")
		resp, body := send(t, client, req)
		if resp.StatusCode != tc.wantStatus {
			t.Errorf("GET %s: %d %q, want %d", tc.url, resp.StatusCode, body, tc.wantStatus)
		}
	}
	conn, _, resp := rawConnect(t, p, "evil.example.test:443")
	_ = conn.Close()
	if resp.StatusCode != http.StatusForbidden {
		t.Errorf("CONNECT evil.example.test:443: %d, want 403", resp.StatusCode)
	}
	if n := len(w.canary.received()); n != 0 {
		t.Errorf("canary received %d requests under the reference policy", n)
	}
	for _, d := range p.Decisions() {
		t.Logf("decision: %+v", d)
	}
}
