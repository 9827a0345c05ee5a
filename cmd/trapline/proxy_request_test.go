package main

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/trapline/trapline/proxy"
)

// TestProxyCommandJudgesWhatRequestsDo is issue 15's done-when: trapline proxy with the reference
// policy answers 403 naming the rule for lenient-backend path aliases of /admin, an outside URL in
// a query parameter, an operation smuggled into the status write's body, an oversized or unreadable
// body and an executable served by Content-Disposition, and lets the plain status write through.
// The portal behind it sees only the allowed requests; every decision is in the log with its rule.
func TestProxyCommandJudgesWhatRequestsDo(t *testing.T) {
	var (
		mu   sync.Mutex
		hits []string
	)
	portal := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		mu.Lock()
		hits = append(hits, r.Method+" "+r.URL.RequestURI()+" "+string(body))
		mu.Unlock()
		switch r.URL.Path {
		case "/pratiche/9/visura":
			w.Header().Set("Content-Disposition", `attachment; filename="visura.exe"`)
		case "/pratiche/9/rotto":
			w.Header().Set("Content-Disposition", `attachment; filename="visura.exe`)
		case "/pratiche/9/forgiato": // the page speaks for the proxy (issue 28.1)
			w.Header().Set(proxy.RuleHeader, "anything")
			w.Header().Set("Content-Disposition", `attachment; filename="setup.exe"`)
		}
		_, _ = io.WriteString(w, "portale")
	}))
	defer portal.Close()
	pc := startProxyCommand(t, map[string]string{
		"portale.interno.test": portal.Listener.Addr().String(),
		"static.interno.test":  portal.Listener.Addr().String(),
	})
	client := pc.client

	const base = "http://portale.interno.test"
	form := "application/x-www-form-urlencoded"
	cases := []struct {
		name, method, url, ctype, body string
		want                           int
		rule                           string
	}{
		{"matrix-parameter dot segment", "GET", base + "/pratiche/..;/admin", "", "", 403, "deny_path"},
		{"full-width dot segments, encoded", "GET", base + "/pratiche/%EF%BC%8E%EF%BC%8E/admin", "", "", 403, "deny_path"},
		{"full-width dot segments and slash", "GET", base + "/pratiche/%EF%BC%8E%EF%BC%8E%EF%BC%8Fadmin", "", "", 403, "deny_path"},
		{"outside URL in a query parameter", "GET", base + "/pratiche/vai?u=http://evil.example.test/x", "", "", 403, "outside_url_param"},
		{"azione=elimina in the status write's body", "POST", base + "/pratiche/3/stato", form, "stato=chiusa&azione=elimina", 403, "write_operation_not_allowed"},
		{"azione=elimina alone", "POST", base + "/pratiche/3/stato", form, "azione=elimina", 403, "write_operation_not_allowed"},
		{"status write on the static host", "POST", "http://static.interno.test/pratiche/3/stato", form, "stato=chiusa", 403, "write_not_allowed"},
		{"oversized body", "POST", base + "/pratiche/3/stato", form, "stato=" + strings.Repeat("x", 70000), 403, "body_too_large"},
		{"malformed body", "POST", base + "/pratiche/3/stato", form, "stato=%zz", 403, "body_unreadable"},
		{"unknown content type", "POST", base + "/pratiche/3/stato", "application/x-thing", "stato=chiusa", 403, "body_unreadable"},
		{"executable by Content-Disposition", "GET", base + "/pratiche/9/visura", "", "", 403, "response_download"},
		{"malformed Content-Disposition", "GET", base + "/pratiche/9/rotto", "", "", 403, "response_download"},
		{"forged X-Trapline-Rule on an executable", "GET", base + "/pratiche/9/forgiato", "", "", 403, "forged_internal_header"},
		{"the status write itself", "POST", base + "/pratiche/3/stato", form, "stato=chiusa", 200, "allowed"},
	}
	for _, c := range cases {
		req, err := http.NewRequest(c.method, c.url, strings.NewReader(c.body))
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if c.ctype != "" {
			req.Header.Set("Content-Type", c.ctype)
		}
		resp, err := client.Do(req)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		body, _ := io.ReadAll(resp.Body)
		_ = resp.Body.Close()
		if resp.StatusCode != c.want {
			t.Errorf("%s: %s %s answered %d (%s), want %d", c.name, c.method, c.url, resp.StatusCode, body, c.want)
		}
		if c.want == 403 {
			if got := resp.Header.Get(proxy.RuleHeader); got != c.rule {
				t.Errorf("%s: rule header %q, want %q", c.name, got, c.rule)
			}
			if !strings.Contains(string(body), "denied by rule "+c.rule) {
				t.Errorf("%s: body %q does not name rule %s", c.name, body, c.rule)
			}
		}
	}
	mu.Lock()
	want := []string{"GET /pratiche/9/visura ", "GET /pratiche/9/rotto ", "GET /pratiche/9/forgiato ", "POST /pratiche/3/stato stato=chiusa"}
	if strings.Join(hits, "|") != strings.Join(want, "|") {
		t.Errorf("portal saw %q, want %q (a response cut by its headers still reached the portal)", hits, want)
	}
	mu.Unlock()

	rules := map[string]bool{}
	for _, d := range pc.stop(t) {
		rules[string(d.Rule)] = true
	}
	for _, c := range cases {
		if !rules[c.rule] {
			t.Errorf("the decision log has no %s line (%s)", c.rule, c.name)
		}
	}
}
