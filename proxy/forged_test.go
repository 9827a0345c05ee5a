package proxy

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/trapline/trapline/agentkit/policy"
)

// forgingUpstream answers every request with the proxy's own rule header and, on /pratiche/9/visura, an
// executable download.
func forgingUpstream(t *testing.T) *httptest.Server {
	t.Helper()
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/pratiche/9/visura":
			w.Header().Set(RuleHeader, "x")
			w.Header().Set("Content-Disposition", `attachment; filename="setup.exe"`)
			_, _ = io.WriteString(w, "MZ-payload")
		case "/pratiche/9":
			w.Header().Set("x-trapline-anything", "1") // any case, any name under the prefix
			_, _ = io.WriteString(w, "plain-payload")
		case "/trailer":
			w.Header().Set("Trailer", RuleHeader)
			w.(http.Flusher).Flush() // chunked: a body of unknown length
			_, _ = io.WriteString(w, "trailer-payload")
			w.Header().Set(RuleHeader, "x")
		}
	}))
	t.Cleanup(s.Close)
	return s
}

// TestForgedInternalHeaderIsRefused: an upstream that sends X-Trapline-Rule cannot pass its
// response off as the proxy's own denial, which went unjudged before (issue 28.1).
func TestForgedInternalHeaderIsRefused(t *testing.T) {
	pol, err := policy.Load(referencePolicy)
	if err != nil {
		t.Fatalf("load reference policy: %v", err)
	}
	up := forgingUpstream(t)
	hosts := map[string]string{"portale.interno.test": up.Listener.Addr().String()}
	for _, tc := range []struct {
		name  string
		rules Rules
		path  string
	}{
		{"reference policy, executable download", pol, "/pratiche/9/visura"},
		{"reference policy, plain page", pol, "/pratiche/9"},
		{"rules that judge no response", newFakeRules("portale.interno.test"), "/pratiche/9"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var log syncBuffer
			p := startProxy(t, Config{Rules: tc.rules, Hosts: hosts, Log: &log})
			resp, body := send(t, proxiedClient(t, p), newRequest(t, "GET", "http://portale.interno.test"+tc.path, nil))
			if resp.StatusCode != http.StatusForbidden || strings.Contains(string(body), "payload") {
				t.Fatalf("GET %s: %d %q, want 403 without the upstream's body", tc.path, resp.StatusCode, body)
			}
			if got := resp.Header.Get(RuleHeader); got != string(RuleForgedInternalHeader) {
				t.Errorf("%s = %q, want %s", RuleHeader, got, RuleForgedInternalHeader)
			}
			lines := log.lines()
			if len(lines) != 2 {
				t.Fatalf("decision log has %d lines, want the request's allow and the response's refusal:\n%s", len(lines), strings.Join(lines, "\n"))
			}
			var d Decision
			if err := json.Unmarshal([]byte(lines[1]), &d); err != nil {
				t.Fatal(err)
			}
			if d.Allowed() || d.Rule != RuleForgedInternalHeader || d.Path != tc.path || !strings.Contains(d.Reason, "X-Trapline-") {
				t.Errorf("logged %+v, want a %s refusal of %s naming the header", d, RuleForgedInternalHeader, tc.path)
			}
		})
	}
	t.Run("trailer is stripped", func(t *testing.T) {
		p := startProxy(t, Config{Rules: newFakeRules("portale.interno.test"), Hosts: hosts})
		resp, body := send(t, proxiedClient(t, p), newRequest(t, "GET", "http://portale.interno.test/trailer", nil))
		if resp.StatusCode != http.StatusOK || string(body) != "trailer-payload" {
			t.Fatalf("GET /trailer: %d %q", resp.StatusCode, body)
		}
		if v := resp.Trailer.Get(RuleHeader); v != "" {
			t.Errorf("trailer %s = %q reached the client", RuleHeader, v)
		}
	})
}

// TestOwnDenialKeepsItsRuleHeader: the proxy's own 403 still names its rule after onResponse.
func TestOwnDenialKeepsItsRuleHeader(t *testing.T) {
	p := startProxy(t, Config{Rules: newFakeRules(), Hosts: map[string]string{"evil.example.test": "127.0.0.1:1"}})
	resp, _ := send(t, proxiedClient(t, p), newRequest(t, "GET", "http://evil.example.test/", nil))
	if resp.StatusCode != http.StatusForbidden || resp.Header.Get(RuleHeader) != string(policy.RuleHostNotAllowed) {
		t.Errorf("got %d %s=%q, want 403 host_not_allowed", resp.StatusCode, RuleHeader, resp.Header.Get(RuleHeader))
	}
	if n := len(p.Decisions()); n != 1 {
		t.Errorf("%d decisions, want 1 (the request's)", n)
	}
}

// TestResponseBodyIsNotJudged pins a known blind spot (docs/security.md): the proxy judges a
// response by its headers only, so executable bytes served as text/html without a
// Content-Disposition pass; the browser's download guard is the layer that stops a save.
func TestResponseBodyIsNotJudged(t *testing.T) {
	pol, err := policy.Load(referencePolicy)
	if err != nil {
		t.Fatal(err)
	}
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		_, _ = io.WriteString(w, "MZ\x90\x00 an executable's bytes")
	}))
	t.Cleanup(up.Close)
	p := startProxy(t, Config{Rules: pol, Hosts: map[string]string{"portale.interno.test": up.Listener.Addr().String()}})
	resp, body := send(t, proxiedClient(t, p), newRequest(t, "GET", "http://portale.interno.test/pratiche/9", nil))
	if resp.StatusCode != http.StatusOK || !strings.HasPrefix(string(body), "MZ") {
		t.Errorf("got %d %q: if the proxy now judges bodies, update docs/security.md", resp.StatusCode, body)
	}
}
