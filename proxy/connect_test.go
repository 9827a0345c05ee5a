package proxy

import (
	"bufio"
	"crypto/tls"
	"crypto/x509"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/trapline/trapline/agentkit/policy"
)

// rawConnect sends "CONNECT target" over a fresh connection to p and returns the connection, a
// reader positioned after the response head, and the response.
func rawConnect(t *testing.T, p *Proxy, target string) (net.Conn, *bufio.Reader, *http.Response) {
	t.Helper()
	conn, err := net.DialTimeout("tcp", p.Addr(), 5*time.Second)
	if err != nil {
		t.Fatalf("dial proxy: %v", err)
	}
	t.Cleanup(func() { _ = conn.Close() })
	_ = conn.SetDeadline(time.Now().Add(10 * time.Second))
	if _, err := io.WriteString(conn, "CONNECT "+target+" HTTP/1.1\r\nHost: "+target+"\r\n\r\n"); err != nil {
		t.Fatalf("write CONNECT: %v", err)
	}
	br := bufio.NewReader(conn)
	resp, err := http.ReadResponse(br, &http.Request{Method: http.MethodConnect})
	if err != nil {
		t.Fatalf("read CONNECT response: %v", err)
	}
	return conn, br, resp
}

// bufferedConn reads through a bufio.Reader that may hold bytes already read off the connection.
type bufferedConn struct {
	net.Conn
	r *bufio.Reader
}

func (c bufferedConn) Read(p []byte) (int, error) { return c.r.Read(p) }

func TestConnect(t *testing.T) {
	secure := newUpstream(t, "secure", true)
	canary := newUpstream(t, "canary", true)
	ws := newUpstream(t, "ws", false)
	rules := newFakeRules("secure.interno.test", "ws.interno.test", "cdn.allowed.test")
	p := startProxy(t, Config{Rules: rules, Hosts: map[string]string{
		"secure.interno.test": secure.addr(), // port-less key: 443 for CONNECT
		"ws.interno.test":     ws.addr(),     // port-less key: 80
		"evil.example.test":   canary.addr(),
	}})

	roots := x509.NewCertPool()
	roots.AddCert(secure.Certificate())

	cases := []struct {
		name       string
		target     string
		wantStatus int
		wantRule   policy.Rule
		wantScheme string
		wantHost   string
		tunnel     func(t *testing.T, c net.Conn) // run over an established tunnel
	}{
		{"allowed TLS tunnel", "secure.interno.test:443", 200, "allowed", "https", "secure.interno.test", func(t *testing.T, c net.Conn) {
			// httptest's certificate is for example.com; the name only has to match it.
			tc := tls.Client(c, &tls.Config{RootCAs: roots, ServerName: "example.com"})
			getOver(t, tc, "secure.interno.test", "hello from secure")
		}},
		{"allowed plaintext tunnel on port 80 (ws:// from Chromium)", "ws.interno.test:80", 200, "allowed", "tunnel", "ws.interno.test:80", func(t *testing.T, c net.Conn) {
			getOver(t, c, "ws.interno.test", "hello from ws")
		}},
		{"denied host", "evil.example.test:443", 403, "host_not_allowed", "https", "evil.example.test", nil},
		{"allowed but unmapped host", "cdn.allowed.test:443", 403, "unmapped_host", "https", "cdn.allowed.test", nil},
		{"allowed host on an unmapped port", "secure.interno.test:8443", 403, "unmapped_host", "tunnel", "secure.interno.test:8443", nil},
	}
	for i, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			conn, br, resp := rawConnect(t, p, tc.target)
			if resp.StatusCode != tc.wantStatus {
				t.Fatalf("CONNECT %s: status %d, want %d", tc.target, resp.StatusCode, tc.wantStatus)
			}
			if tc.wantStatus == http.StatusForbidden {
				body, _ := io.ReadAll(resp.Body)
				if !strings.Contains(string(body), "denied by rule "+string(tc.wantRule)) || resp.Header.Get(RuleHeader) != string(tc.wantRule) {
					t.Errorf("CONNECT %s: body %q header %q, want rule %s", tc.target, body, resp.Header.Get(RuleHeader), tc.wantRule)
				}
			}
			if tc.tunnel != nil {
				tc.tunnel(t, bufferedConn{Conn: conn, r: br})
			}
			ds := p.Decisions()
			if len(ds) != i+1 {
				t.Fatalf("got %d decisions, want %d", len(ds), i+1)
			}
			d := ds[i]
			if d.Method != http.MethodConnect || d.Rule != tc.wantRule || d.Scheme != tc.wantScheme || d.Host != tc.wantHost || d.Allowed() != (tc.wantStatus == 200) {
				t.Errorf("decision = %+v, want CONNECT %s %s host %s", d, tc.wantScheme, tc.wantRule, tc.wantHost)
			}
		})
	}
	if n := len(canary.received()); n != 0 {
		t.Errorf("canary received %d requests, want none", n)
	}
}

// getOver sends one GET over c (a tunnel) and checks the answer.
func getOver(t *testing.T, c net.Conn, host, wantBody string) {
	t.Helper()
	req := newRequest(t, "GET", "http://"+host+"/", nil)
	if err := req.Write(c); err != nil {
		t.Fatalf("write request through tunnel: %v", err)
	}
	resp, err := http.ReadResponse(bufio.NewReader(c), req)
	if err != nil {
		t.Fatalf("read response through tunnel: %v", err)
	}
	body, _ := io.ReadAll(resp.Body)
	_ = resp.Body.Close()
	if resp.StatusCode != 200 || string(body) != wantBody {
		t.Errorf("through tunnel: got %d %q, want 200 %q", resp.StatusCode, body, wantBody)
	}
}

// TestConnectWithHTTPClient drives the allowed tunnel the way a browser does: https:// through the
// proxy with Go's own CONNECT. HTTPS_PROXY points at a dead port: goproxy's constructor reads it,
// and the tunnel must still go to the mapped address (our ConnectDialWithReq takes precedence and
// ConnectDial is cleared as well).
func TestConnectWithHTTPClient(t *testing.T) {
	t.Setenv("HTTPS_PROXY", "http://127.0.0.1:1")
	t.Setenv("https_proxy", "http://127.0.0.1:1")
	secure := newUpstream(t, "secure", true)
	p := startProxy(t, Config{Rules: newFakeRules("secure.interno.test"), Hosts: map[string]string{"secure.interno.test": secure.addr()}})
	client := proxiedClient(t, p)
	roots := x509.NewCertPool()
	roots.AddCert(secure.Certificate())
	client.Transport.(*http.Transport).TLSClientConfig = &tls.Config{RootCAs: roots, ServerName: "example.com"}

	resp, err := client.Get("https://secure.interno.test/pratiche")
	if err != nil {
		t.Fatalf("GET through tunnel: %v", err)
	}
	body, _ := io.ReadAll(resp.Body)
	_ = resp.Body.Close()
	if resp.StatusCode != 200 || string(body) != "hello from secure" {
		t.Errorf("got %d %q", resp.StatusCode, body)
	}
	if hits := secure.received(); len(hits) != 1 || hits[0].Path != "/pratiche" {
		t.Errorf("upstream saw %+v, want one GET /pratiche", hits)
	}
}
