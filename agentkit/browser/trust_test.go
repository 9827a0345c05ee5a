package browser

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"time"

	playwright "github.com/mxschmitt/playwright-go"

	"github.com/trapline/trapline/proxy"
)

// TestBrowserTrustsOnlyItsCA: a world proxy signing with the browser's CA (Browser.CA) serves
// https://portale.interno.test to the browser, judged request by request (an https decision with a
// path, /admin refused as deny_path); a proxy signing with any other CA is refused by the browser
// (a certificate error) and logs the tunnel as tunnel_unjudged. Chromium never trusts the system
// store or every certificate for it.
func TestBrowserTrustsOnlyItsCA(t *testing.T) {
	if _, err := os.Stat(HeadlessShell); err != nil {
		t.Skip("no browser at " + HeadlessShell + " (make setup)")
	}
	b := sharedBrowser(t)
	if b.CA() == nil {
		t.Fatal("a launched browser has no CA")
	}
	site := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		_, _ = w.Write([]byte(`<!doctype html><title>portal</title><p>ok</p>`))
	})
	pol, _ := portalProxy(t, site)
	srv := httptest.NewServer(site)
	t.Cleanup(srv.Close)
	other, err := proxy.NewCA(time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name    string
		ca      *proxy.CA
		trusted bool
	}{
		{"the browser's CA", b.CA(), true},
		{"another CA", other, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			px, err := proxy.Start(proxy.Config{Rules: pol, CA: tc.ca, Hosts: map[string]string{"portale.interno.test": strings.TrimPrefix(srv.URL, "http://")}})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = px.Close() })
			sess, _ := newSession(t, b, px, pol, t.TempDir())
			t.Cleanup(func() { _ = sess.Close() })
			res := sess.Goto(context.Background(), "https://portale.interno.test/pratiche")
			if !tc.trusted {
				if res.Err == nil {
					t.Fatal("the browser accepted a certificate from a CA it must not trust")
				}
				if !eventuallyDecision(px, func(d proxy.Decision) bool { return d.Rule == proxy.RuleTunnelUnjudged }) {
					t.Errorf("decisions %+v, want the tunnel refused as %s", px.Decisions(), proxy.RuleTunnelUnjudged)
				}
				return
			}
			if res.Err != nil {
				t.Fatalf("goto over HTTPS: %v", res.Err)
			}
			title, err := sess.Page().Title()
			if err != nil || title != "portal" {
				t.Errorf("title %q, %v; want portal", title, err)
			}
			if !eventuallyDecision(px, func(d proxy.Decision) bool {
				return d.Method == "GET" && d.Scheme == "https" && d.Path == "/pratiche" && d.Allowed()
			}) {
				t.Errorf("decisions %+v, want an allowed https GET /pratiche", px.Decisions())
			}
			// A bare context on the same browser (no session gates): the proxy itself refuses /admin
			// inside the tunnel and the browser shows its 403.
			bare, err := b.b.NewContext(playwright.BrowserNewContextOptions{Proxy: &playwright.Proxy{Server: px.URL()}})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = bare.Close() })
			page, err := bare.NewPage()
			if err != nil {
				t.Fatal(err)
			}
			resp, err := page.Goto("https://portale.interno.test/admin")
			if err != nil || resp.Status() != http.StatusForbidden {
				t.Errorf("goto https://portale.interno.test/admin: %v, %v; want the proxy's 403", resp, err)
			}
			if !eventuallyDecision(px, func(d proxy.Decision) bool { return d.Scheme == "https" && d.Path == "/admin" && d.Rule == "deny_path" }) {
				t.Errorf("decisions %+v, want https /admin refused as deny_path", px.Decisions())
			}
		})
	}
}

// eventuallyDecision waits up to five seconds for a decision of px that ok accepts.
func eventuallyDecision(px *proxy.Proxy, ok func(proxy.Decision) bool) bool {
	deadline := time.Now().Add(5 * time.Second)
	for {
		for _, d := range px.Decisions() {
			if ok(d) {
				return true
			}
		}
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(20 * time.Millisecond)
	}
}
