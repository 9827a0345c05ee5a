package main

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/trapline/trapline/agentkit/policy"
	"github.com/trapline/trapline/proxy"
	"github.com/trapline/trapline/world"
)

func TestServeMountsTheTrapBehindItsProxy(t *testing.T) {
	w, stop := startCommand(t, "serve", func(ctx context.Context, ready chan<- *world.Local) error {
		return serve(ctx, nil, nil, "external-link", "../../policies/reference.yml", "127.0.0.1:0", t.TempDir(), io.Discard, ready)
	})
	px, _ := url.Parse(w.ProxyURL())
	c := &http.Client{Transport: &http.Transport{Proxy: http.ProxyURL(px)}}
	get := func(u string) (int, string) {
		resp, err := c.Get(u)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	if code, body := get("http://portale.interno.test/pratiche/7/allegati"); code != 200 || !strings.Contains(body, "Allegati della pratica 7") {
		t.Fatalf("trap page: %d %s", code, body)
	}
	if code, _ := get("http://evil.example.test/"); code != http.StatusForbidden {
		t.Fatalf("the reference policy must deny the outside: got %d", code)
	}
	stop()
	if code := run([]string{"serve", "--trap", "no-such-trap"}, io.Discard, io.Discard); code != exitUsage {
		t.Fatalf("unknown trap: exit %d", code)
	}
}

// TestServeTellsTheVisitorItsCA: trapline serve writes the world's CA certificate to OUT/ca.pem and
// prints it, with a Chromium line that trusts it alone (its SPKI hash) and a curl line: a client
// trusting that file reaches the trap over HTTPS through the proxy, judged request by request
// (/admin: 403 deny_path); a client that does not trust it is refused the certificate (control).
func TestServeTellsTheVisitorItsCA(t *testing.T) {
	out := t.TempDir()
	var printed bytes.Buffer
	w, stop := startCommand(t, "serve", func(ctx context.Context, ready chan<- *world.Local) error {
		return serve(ctx, nil, nil, "decoy-delete", "../../policies/reference.yml", "127.0.0.1:0", out, &printed, ready)
	})
	defer stop()
	caFile := filepath.Join(out, "ca.pem")
	text := printed.String()
	if !strings.Contains(text, "ca        "+caFile) || !strings.Contains(text, "--ignore-certificate-errors-spki-list="+w.CA().SPKIHash()) || !strings.Contains(text, "--cacert "+caFile) {
		t.Fatalf("serve does not tell the visitor its CA:\n%s", text)
	}
	pem, err := os.ReadFile(caFile)
	if err != nil {
		t.Fatal(err)
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(pem) || !bytes.Equal(pem, w.CA().PEM()) {
		t.Fatalf("%s is not the world's CA certificate", caFile)
	}
	if bytes.Contains(pem, []byte("PRIVATE KEY")) {
		t.Fatalf("%s holds the CA's key", caFile)
	}
	px, _ := url.Parse(w.ProxyURL())
	client := func(roots *x509.CertPool) *http.Client {
		return &http.Client{Transport: &http.Transport{Proxy: http.ProxyURL(px), TLSClientConfig: &tls.Config{RootCAs: roots}}}
	}
	for path, want := range map[string]string{"/pratiche/4": "", "/admin": string(policy.RuleDenyPath)} {
		resp, err := client(pool).Get("https://portale.interno.test" + path)
		if err != nil {
			t.Fatalf("GET https %s trusting ca.pem: %v", path, err)
		}
		_ = resp.Body.Close()
		if got := resp.Header.Get(proxy.RuleHeader); got != want || (want == "" && resp.StatusCode != http.StatusOK) {
			t.Errorf("GET https %s: %d %s=%q, want %q", path, resp.StatusCode, proxy.RuleHeader, got, want)
		}
	}
	if resp, err := client(x509.NewCertPool()).Get("https://portale.interno.test/pratiche/4"); err == nil {
		_ = resp.Body.Close()
		t.Fatalf("control: a client that does not trust ca.pem got %d", resp.StatusCode)
	}
}

// TestServeUpstreamAllowsTheAppsHost: trapline serve --upstream under its default policy (permissive)
// reaches the user's app through the proxy (it was refused as host_not_allowed unless --policy was
// given); a policy the user names is enforced as written (control).
func TestServeUpstreamAllowsTheAppsHost(t *testing.T) {
	app := httptestServer(t, "the user's app")
	ups, err := parseUpstreams([]string{"app.example.test=" + app}, "", "", "")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		policy string
		want   int
	}{{"permissive", http.StatusOK}, {"../../policies/reference.yml", http.StatusForbidden}} {
		w, stop := startCommand(t, "serve", func(ctx context.Context, ready chan<- *world.Local) error {
			return serve(ctx, nil, ups, "decoy-delete", c.policy, "127.0.0.1:0", t.TempDir(), io.Discard, ready)
		})
		px, _ := url.Parse(w.ProxyURL())
		resp, err := (&http.Client{Transport: &http.Transport{Proxy: http.ProxyURL(px)}}).Get("http://app.example.test/")
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		stop()
		if resp.StatusCode != c.want {
			t.Errorf("--policy %s: GET the app: %d, want %d", c.policy, resp.StatusCode, c.want)
		}
	}
}

func httptestServer(t *testing.T, body string) string {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { io.WriteString(w, body) }))
	t.Cleanup(srv.Close)
	return srv.URL
}
