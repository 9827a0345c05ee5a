package proxy

import (
	"bufio"
	"crypto/tls"
	"crypto/x509"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
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
	upRoots := x509.NewCertPool()
	upRoots.AddCert(secure.Certificate())
	p := startProxy(t, Config{Rules: rules, UpstreamRoots: upRoots, Hosts: map[string]string{
		"secure.interno.test": "https://" + secure.addr(), // port-less key: 443 for CONNECT
		"ws.interno.test":     ws.addr(),                  // port-less key: 80
		"evil.example.test":   canary.addr(),
	}})

	cases := []struct {
		name       string
		target     string
		wantStatus int
		wantRule   policy.Rule
		wantScheme string
		wantHost   string
		tunnel     func(t *testing.T, c net.Conn) // run over an established tunnel
	}{
		{"allowed TLS tunnel, intercepted with the proxy's CA", "secure.interno.test:443", 200, "allowed", "https", "secure.interno.test", func(t *testing.T, c net.Conn) {
			tc := tls.Client(c, &tls.Config{RootCAs: p.CA().Pool(), ServerName: "secure.interno.test"})
			getOver(t, tc, "secure.interno.test", "hello from secure")
		}},
		{"allowed plaintext tunnel on port 80 (ws:// from Chromium)", "ws.interno.test:80", 200, "allowed", "tunnel", "ws.interno.test:80", func(t *testing.T, c net.Conn) {
			getOver(t, c, "ws.interno.test", "hello from ws")
		}},
		{"denied host", "evil.example.test:443", 403, "host_not_allowed", "https", "evil.example.test", nil},
		{"allowed but unmapped host", "cdn.allowed.test:443", 403, "unmapped_host", "https", "cdn.allowed.test", nil},
		{"allowed host on an unmapped port", "secure.interno.test:8443", 403, "unmapped_host", "tunnel", "secure.interno.test:8443", nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			before := len(p.Decisions())
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
			ds := p.Decisions()[before:]
			want := 1
			if tc.tunnel != nil {
				want = 2 // the CONNECT, then the GET judged inside it
			}
			if len(ds) != want {
				t.Fatalf("got decisions %+v, want %d", ds, want)
			}
			d := ds[0]
			if d.Method != http.MethodConnect || d.Rule != tc.wantRule || d.Scheme != tc.wantScheme || d.Host != tc.wantHost || d.Allowed() != (tc.wantStatus == 200) {
				t.Errorf("decision = %+v, want CONNECT %s %s host %s", d, tc.wantScheme, tc.wantRule, tc.wantHost)
			}
			if want == 2 && (ds[1].Method != "GET" || ds[1].Path != "/" || !ds[1].Allowed()) {
				t.Errorf("decision inside the tunnel = %+v, want an allowed GET /", ds[1])
			}
		})
	}
	if n := len(canary.received()); n != 0 {
		t.Errorf("canary received %d requests, want none", n)
	}
}

// TestConnectJudgesEveryRequest is issue 28 item 2: a write sent inside an allowed CONNECT, in plain
// HTTP (to :443 or :80) or in TLS, is judged like a plain request and refused with the rule's 403;
// it never reaches the backend. Before the interception the tunnel was blind and the POST arrived.
func TestConnectJudgesEveryRequest(t *testing.T) {
	portal := newUpstream(t, "portal", false)
	rules := newFakeRules("portale.interno.test")
	rules.denyMethods["POST"] = true
	p := startProxy(t, Config{Rules: rules, Hosts: map[string]string{"portale.interno.test": portal.addr()}})

	for _, tc := range []struct {
		name, target string
		tls          bool
		wantScheme   string
	}{
		{"plain HTTP in a CONNECT to :443", "portale.interno.test:443", false, "http"},
		{"plain HTTP in a CONNECT to :80", "portale.interno.test:80", false, "http"},
		{"TLS in a CONNECT to :443", "portale.interno.test:443", true, "https"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			conn, br, resp := rawConnect(t, p, tc.target)
			if resp.StatusCode != http.StatusOK {
				t.Fatalf("CONNECT: %d", resp.StatusCode)
			}
			var c net.Conn = bufferedConn{Conn: conn, r: br}
			if tc.tls {
				c = tls.Client(c, &tls.Config{RootCAs: p.CA().Pool(), ServerName: "portale.interno.test"})
			}
			req := newRequest(t, "POST", "http://portale.interno.test/pratiche/1/elimina", strings.NewReader("conferma=1"))
			req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
			if err := req.Write(c); err != nil {
				t.Fatalf("write POST in the tunnel: %v", err)
			}
			got, err := http.ReadResponse(bufio.NewReader(c), req)
			if err != nil {
				t.Fatalf("read the answer: %v", err)
			}
			body, _ := io.ReadAll(got.Body)
			if got.StatusCode != http.StatusForbidden || got.Header.Get(RuleHeader) != string(policy.RuleWriteNotAllowed) ||
				!strings.Contains(string(body), "denied by rule write_not_allowed") {
				t.Errorf("POST in the tunnel: %d %q (rule %q), want 403 write_not_allowed", got.StatusCode, body, got.Header.Get(RuleHeader))
			}
			ds := p.Decisions()
			last := ds[len(ds)-1]
			if last.Method != "POST" || last.Path != "/pratiche/1/elimina" || last.Scheme != tc.wantScheme || last.Rule != policy.RuleWriteNotAllowed {
				t.Errorf("last decision = %+v, want the POST refused as write_not_allowed over %s", last, tc.wantScheme)
			}
		})
	}
	if hits := portal.received(); len(hits) != 0 {
		t.Errorf("the backend received %+v, want nothing", hits)
	}
}

// TestConnectRefusesWhatItCannotJudge: a client that does not trust the proxy's CA, one that speaks
// neither TLS nor HTTP, and a request naming another host than the tunnel's are refused with a rule
// in the decision log, and nothing reaches an upstream.
func TestConnectRefusesWhatItCannotJudge(t *testing.T) {
	portal := newUpstream(t, "portal", false)
	canary := newUpstream(t, "canary", false)
	p := startProxy(t, Config{Rules: newFakeRules("portale.interno.test", "evil.example.test"), Hosts: map[string]string{
		"portale.interno.test": portal.addr(),
		"evil.example.test":    canary.addr(),
	}})
	other, err := NewCA(time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	lastDecision := func(t *testing.T, want policy.Rule) Decision {
		t.Helper()
		var d Decision
		if !eventually(5*time.Second, func() bool {
			ds := p.Decisions()
			d = ds[len(ds)-1]
			return d.Rule == want
		}) {
			t.Errorf("last decision = %+v, want rule %s", d, want)
		}
		return d
	}

	t.Run("client trusts another CA", func(t *testing.T) {
		conn, br, _ := rawConnect(t, p, "portale.interno.test:443")
		tc := tls.Client(bufferedConn{Conn: conn, r: br}, &tls.Config{RootCAs: other.Pool(), ServerName: "portale.interno.test"})
		if err := tc.Handshake(); err == nil {
			t.Fatal("handshake succeeded with a CA the client does not trust")
		}
		d := lastDecision(t, RuleTunnelUnjudged)
		if d.Method != http.MethodConnect || d.Allowed() || d.Scheme != "https" || d.Host != "portale.interno.test" {
			t.Errorf("decision = %+v, want a refused https CONNECT to portale.interno.test", d)
		}
	})
	t.Run("neither TLS nor HTTP", func(t *testing.T) {
		conn, _, _ := rawConnect(t, p, "portale.interno.test:443")
		if _, err := conn.Write([]byte{0x00, 0x01, 0x02, '\n'}); err != nil {
			t.Fatal(err)
		}
		lastDecision(t, RuleTunnelUnjudged)
	})
	t.Run("a request for another host", func(t *testing.T) {
		for _, host := range []string{"evil.example.test", "portale.interno.test:80"} {
			// A tunnel each: the refusal closes the connection.
			conn, br, _ := rawConnect(t, p, "portale.interno.test:443")
			tc := tls.Client(bufferedConn{Conn: conn, r: br}, &tls.Config{RootCAs: p.CA().Pool(), ServerName: "portale.interno.test"})
			req := newRequest(t, "GET", "https://"+host+"/", nil)
			if err := req.Write(tc); err != nil {
				t.Fatal(err)
			}
			resp, err := http.ReadResponse(bufio.NewReader(tc), req)
			if err != nil {
				t.Fatalf("read the answer: %v", err)
			}
			if resp.StatusCode != http.StatusForbidden || resp.Header.Get(RuleHeader) != string(RuleTunnelHost) {
				t.Errorf("GET %s in a tunnel to portale.interno.test:443: %d rule %q, want 403 %s", host, resp.StatusCode, resp.Header.Get(RuleHeader), RuleTunnelHost)
			}
			lastDecision(t, RuleTunnelHost)
		}
	})
	if n := len(portal.received()) + len(canary.received()); n != 0 {
		t.Errorf("upstreams received %d requests, want none", n)
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

// TestConnectWithHTTPClient drives an intercepted tunnel the way a browser does: https:// through
// the proxy with Go's own CONNECT, trusting only the proxy's CA. The upstream is a plain listener
// (a world's site) or a TLS one (a user's HTTPS staging app, https:// in Hosts, verified against
// UpstreamRoots). HTTPS_PROXY points at a dead port: goproxy's constructor reads it, and the
// requests must still go to the mapped address.
func TestConnectWithHTTPClient(t *testing.T) {
	t.Setenv("HTTPS_PROXY", "http://127.0.0.1:1")
	t.Setenv("https_proxy", "http://127.0.0.1:1")
	plain := newUpstream(t, "plain", false)
	secure := newUpstream(t, "secure", true)
	upRoots := x509.NewCertPool()
	upRoots.AddCert(secure.Certificate())
	for _, tc := range []struct {
		name   string
		up     *upstream
		target string
		roots  *x509.CertPool
		wantOK bool
	}{
		{"plain upstream", plain, plain.addr(), nil, true},
		{"TLS upstream", secure, "https://" + secure.addr(), upRoots, true},
		{"TLS upstream the proxy does not trust", secure, "https://" + secure.addr(), x509.NewCertPool(), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := len(tc.up.received())
			p := startProxy(t, Config{Rules: newFakeRules("app.interno.test"), UpstreamRoots: tc.roots,
				Hosts: map[string]string{"app.interno.test": tc.target}})
			client := proxiedClient(t, p)
			client.Transport.(*http.Transport).TLSClientConfig = &tls.Config{RootCAs: p.CA().Pool()}
			resp, err := client.Get("https://app.interno.test/pratiche?x=1")
			if err != nil {
				t.Fatalf("GET through the proxy: %v", err)
			}
			body, _ := io.ReadAll(resp.Body)
			_ = resp.Body.Close()
			hits := tc.up.received()[before:]
			if !tc.wantOK {
				if resp.StatusCode == 200 || len(hits) != 0 {
					t.Errorf("got %d %q and upstream hits %+v, want a failure and no hit", resp.StatusCode, body, hits)
				}
				return
			}
			if resp.StatusCode != 200 || string(body) != "hello from "+map[bool]string{true: "secure", false: "plain"}[tc.up == secure] {
				t.Errorf("got %d %q", resp.StatusCode, body)
			}
			if len(hits) != 1 || hits[0].Path != "/pratiche" || hits[0].Host != "app.interno.test" {
				t.Errorf("upstream saw %+v, want one GET /pratiche for app.interno.test", hits)
			}
			ds := p.Decisions()
			if len(ds) != 2 || ds[1].Scheme != "https" || ds[1].Path != "/pratiche" || ds[1].Host != "app.interno.test" || !ds[1].Allowed() {
				t.Errorf("decisions = %+v, want the CONNECT and an allowed https GET /pratiche", ds)
			}
		})
	}
}

// TestWebSocketInsideConnect: Chromium sends ws:// through a CONNECT to port 80. The upgrade is
// judged (and logged as ws) like any request inside the tunnel, and the frames then flow both ways,
// each message logged (upgrade.go: a genuine handshake, key and accept).
func TestWebSocketInsideConnect(t *testing.T) {
	echo := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Upgrade") != "websocket" {
			http.Error(w, "want an upgrade", http.StatusBadRequest)
			return
		}
		c, brw, err := http.NewResponseController(w).Hijack()
		if err != nil {
			return
		}
		defer c.Close()
		_, _ = io.WriteString(c, "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: "+acceptFor(r.Header.Get("Sec-WebSocket-Key"))+"\r\n\r\n")
		frame := make([]byte, 6+4) // a masked 4-byte text frame, zero key
		if _, err := io.ReadFull(brw, frame); err == nil {
			_, _ = c.Write(append([]byte{0x81, 9}, "echo "+string(frame[6:])...))
		}
	}))
	t.Cleanup(echo.Close)
	p := startProxy(t, Config{Rules: newFakeRules("ws.interno.test"), Hosts: map[string]string{"ws.interno.test": echo.Listener.Addr().String()}})
	conn, br, resp := rawConnect(t, p, "ws.interno.test:80")
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("CONNECT: %d", resp.StatusCode)
	}
	_, err := io.WriteString(conn, "GET /socket HTTP/1.1\r\nHost: ws.interno.test\r\nConnection: Upgrade\r\nUpgrade: websocket\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n")
	if err != nil {
		t.Fatal(err)
	}
	up, err := http.ReadResponse(br, nil)
	if err != nil || up.StatusCode != http.StatusSwitchingProtocols {
		t.Fatalf("upgrade: %v %v", up, err)
	}
	if _, err := conn.Write(maskedText("ping")); err != nil {
		t.Fatal(err)
	}
	echoed := make([]byte, 11)
	if _, err := io.ReadFull(br, echoed); err != nil || string(echoed[2:]) != "echo ping" {
		t.Errorf("read %q, %v; want the echo frame", echoed, err)
	}
	_ = conn.Close()
	waitFor(t, "the WebSocket's line", func() bool { return len(p.Decisions()) == 3 })
	ds := p.Decisions()
	if ds[1].Scheme != "ws" || ds[1].Path != "/socket" || !ds[1].Allowed() || ds[2].Method != "WEBSOCKET" || !ds[2].Allowed() ||
		ds[2].Reason != "WebSocket closed; client to server 1 message(s), 4 bytes, server to client 1 message(s), 9 bytes" {
		t.Errorf("decisions = %+v, want the CONNECT, an allowed ws /socket and its closing line", ds)
	}
}
