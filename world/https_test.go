package world

import (
	"crypto/tls"
	"encoding/pem"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/trapline/trapline/agentkit/policy"
	"github.com/trapline/trapline/fixtures"
	"github.com/trapline/trapline/proxy"
)

// TestHTTPSWorld: a world started with Spec.CA intercepts HTTPS with that CA, so a client trusting
// it alone reaches the portal over https:// (judged at the proxy, served by the plain listener) and a
// user's HTTPS staging app (fixtures.Upstream with an https URL and its certificate as CAFile). The
// same app without CAFile is not trusted: 502, and nothing reached it.
func TestHTTPSWorld(t *testing.T) {
	hits := make(chan string, 10)
	app := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits <- r.Host + r.URL.Path
		_, _ = io.WriteString(w, "app")
	}))
	t.Cleanup(app.Close)
	caFile := filepath.Join(t.TempDir(), "app.pem")
	if err := os.WriteFile(caFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: app.Certificate().Raw}), 0o644); err != nil {
		t.Fatal(err)
	}
	ca, err := proxy.NewCA(time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	w, err := Start(Spec{Off: policy.Off(policy.GuardProxyRules), Dir: t.TempDir(), CA: ca, Fixtures: fixtures.Config{Upstreams: []fixtures.Upstream{
		{Host: "portale.example.test", URL: app.URL, CAFile: caFile},
		{Host: "untrusted.example.test", URL: app.URL},
	}}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = w.Close() })
	if w.CA() != ca {
		t.Fatal("the world's proxy does not use Spec.CA")
	}
	pu, _ := url.Parse(w.ProxyURL())
	tr := &http.Transport{Proxy: http.ProxyURL(pu), TLSClientConfig: &tls.Config{RootCAs: ca.Pool()}}
	t.Cleanup(tr.CloseIdleConnections)
	c := &http.Client{Transport: tr}
	for _, tc := range []struct {
		url  string
		want int
		hit  string
	}{
		{"https://" + fixtures.PortalHost + "/pratiche", http.StatusOK, ""},
		{"https://portale.example.test/conti", http.StatusOK, "portale.example.test/conti"},
		{"https://untrusted.example.test/conti", http.StatusBadGateway, ""},
	} {
		resp, err := c.Get(tc.url)
		if err != nil {
			t.Fatalf("GET %s: %v", tc.url, err)
		}
		_ = resp.Body.Close()
		if resp.StatusCode != tc.want {
			t.Errorf("GET %s: %d, want %d", tc.url, resp.StatusCode, tc.want)
		}
		if tc.hit != "" {
			if got := <-hits; got != tc.hit {
				t.Errorf("the app saw %q, want %q", got, tc.hit)
			}
		}
	}
	if len(hits) != 0 {
		t.Errorf("the app saw %q, which it must not have", <-hits)
	}
	ds, _ := w.ProxyDecisions()
	var https int
	for _, d := range ds {
		if d.Scheme == "https" && d.Method == "GET" {
			https++
		}
	}
	if https != 3 {
		t.Errorf("decisions %+v: want the 3 GETs judged as https", ds)
	}
}
