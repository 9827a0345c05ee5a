package main

import (
	"bufio"
	"crypto/tls"
	"crypto/x509"
	"encoding/pem"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/trapline/trapline/agentkit/policy"
	"github.com/trapline/trapline/proxy"
)

// TestProxyCommandJudgesHTTPS is issue 28 item 2 through trapline proxy --policy reference: the
// portal is a user's HTTPS staging app (--map host=https://IP:PORT, its self-signed certificate in
// --upstream-ca), and a client trusting only the CA written by --ca-out gets every request judged
// over HTTPS: /pratiche reaches the app, /admin is 403 deny_path, an .exe attachment the app answers
// is cut (403 response_download), and a POST to
// /pratiche/1/elimina written in plain HTTP inside CONNECT portale.interno.test:443 is 403 naming a
// rule. Behind the old blind tunnel the last two reached the app.
func TestProxyCommandJudgesHTTPS(t *testing.T) {
	var (
		mu   sync.Mutex
		hits []string
	)
	app := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		hits = append(hits, r.Method+" "+r.Host+r.URL.Path)
		mu.Unlock()
		if r.URL.Path == "/pratiche/modulo" {
			w.Header().Set("Content-Disposition", `attachment; filename="setup.exe"`)
		}
		_, _ = io.WriteString(w, "app")
	}))
	defer app.Close()
	dir := t.TempDir()
	upCA := filepath.Join(dir, "app.pem")
	if err := os.WriteFile(upCA, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: app.Certificate().Raw}), 0o644); err != nil {
		t.Fatal(err)
	}
	caOut := filepath.Join(dir, "ca.pem")
	pc := startProxyCommand(t, map[string]string{"portale.interno.test": "https://" + app.Listener.Addr().String()},
		"--ca-out", caOut, "--upstream-ca", upCA)
	caPEM, err := os.ReadFile(caOut)
	if err != nil {
		t.Fatalf("--ca-out: %v", err)
	}
	roots := x509.NewCertPool()
	if !roots.AppendCertsFromPEM(caPEM) || strings.Contains(string(caPEM), "PRIVATE KEY") {
		t.Fatalf("--ca-out wrote %q, want one certificate and no key", caPEM)
	}
	tr := pc.client.Transport.(*http.Transport)
	tr.TLSClientConfig = &tls.Config{RootCAs: roots}

	for _, c := range []struct {
		path string
		want int
		rule policy.Rule
	}{
		{"/pratiche", http.StatusOK, ""},
		{"/admin", http.StatusForbidden, policy.RuleDenyPath},
		{"/pratiche/modulo", http.StatusForbidden, policy.RuleResponseDownload}, // the response is judged too
	} {
		req, _ := http.NewRequest("GET", "https://portale.interno.test"+c.path, nil)
		req.Header.Set("Accept", "text/html")
		resp, err := pc.client.Do(req)
		if err != nil {
			t.Fatalf("GET https://portale.interno.test%s: %v", c.path, err)
		}
		_ = resp.Body.Close()
		if resp.StatusCode != c.want || resp.Header.Get(proxy.RuleHeader) != string(c.rule) {
			t.Errorf("GET https://portale.interno.test%s: %d rule %q, want %d %q", c.path, resp.StatusCode, resp.Header.Get(proxy.RuleHeader), c.want, c.rule)
		}
	}

	// The raw technique: plain HTTP written inside the tunnel.
	pu, err := tr.Proxy(&http.Request{})
	if err != nil {
		t.Fatal(err)
	}
	conn, err := net.DialTimeout("tcp", pu.Host, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	_ = conn.SetDeadline(time.Now().Add(10 * time.Second))
	br := bufio.NewReader(conn)
	_, _ = io.WriteString(conn, "CONNECT portale.interno.test:443 HTTP/1.1\r\nHost: portale.interno.test:443\r\n\r\n")
	if resp, err := http.ReadResponse(br, &http.Request{Method: http.MethodConnect}); err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("CONNECT: %v %v", resp, err)
	}
	body := "conferma=1"
	_, _ = io.WriteString(conn, "POST /pratiche/1/elimina HTTP/1.1\r\nHost: portale.interno.test\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: 10\r\n\r\n"+body)
	resp, err := http.ReadResponse(br, nil)
	if err != nil {
		t.Fatalf("read the answer to the POST in the tunnel: %v", err)
	}
	msg, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusForbidden || resp.Header.Get(proxy.RuleHeader) == "" || !strings.Contains(string(msg), "denied by rule") {
		t.Errorf("POST in the tunnel: %d %q, want 403 naming a rule", resp.StatusCode, msg)
	}

	mu.Lock()
	if strings.Join(hits, ";") != "GET portale.interno.test/pratiche;GET portale.interno.test/pratiche/modulo" {
		t.Errorf("the app saw %q, want only the GETs of /pratiche and /pratiche/modulo", hits)
	}
	mu.Unlock()
	var got []string
	for _, d := range pc.stop(t) {
		got = append(got, d.Method+" "+d.Scheme+" "+d.Path+" "+string(d.Rule))
	}
	if !strings.Contains(strings.Join(got, ";"), "GET https /admin deny_path") || !strings.Contains(strings.Join(got, ";"), "POST http /pratiche/1/elimina") {
		t.Errorf("decision log %q, want the /admin and the POST refusals", got)
	}
}

// TestProxyCommandSignsWithTheGivenCA: --ca makes trapline proxy sign with a CA made elsewhere (a
// container world gets its browser's CA this way): a client trusting only that CA gets through, and
// --ca-out writes that same certificate. A file without the key is refused.
func TestProxyCommandSignsWithTheGivenCA(t *testing.T) {
	portal := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { _, _ = io.WriteString(w, "portale") }))
	defer portal.Close()
	ca, err := proxy.NewCA(time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	key, _ := ca.KeyPEM()
	dir := t.TempDir()
	caFile, certOnly, caOut := filepath.Join(dir, "ca.pem"), filepath.Join(dir, "cert.pem"), filepath.Join(dir, "out.pem")
	if err := os.WriteFile(caFile, append(ca.PEM(), key...), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(certOnly, ca.PEM(), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := runProxy(t.Context(), []string{"--policy", referencePolicy, "--ca", certOnly}, io.Discard); err == nil || !strings.Contains(err.Error(), "--ca "+certOnly) {
		t.Errorf("--ca without the key: %v, want a refusal naming the file", err)
	}
	pc := startProxyCommand(t, map[string]string{"portale.interno.test": portal.Listener.Addr().String()}, "--ca", caFile, "--ca-out", caOut)
	out, err := os.ReadFile(caOut)
	if err != nil || string(out) != string(ca.PEM()) {
		t.Errorf("--ca-out wrote %q, %v; want the given CA's certificate", out, err)
	}
	pc.client.Transport.(*http.Transport).TLSClientConfig = &tls.Config{RootCAs: ca.Pool()}
	resp, err := pc.client.Get("https://portale.interno.test/pratiche")
	if err != nil {
		t.Fatalf("GET over HTTPS with the given CA: %v", err)
	}
	_ = resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Errorf("GET over HTTPS: %d, want 200", resp.StatusCode)
	}
	pc.stop(t)
}
