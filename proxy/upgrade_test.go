package proxy

import (
	"bufio"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"
)

// switcher is an upstream that switches protocols in every way issue 49.4 needs: a bare 101 that
// keeps serving HTTP on the connection (what a pack route with status: 101 does), and a WebSocket
// server, honest or with a wrong accept, that records every byte it is sent after the switch.
type switcher struct {
	addr string
	mu   sync.Mutex
	reqs []string // "METHOD PATH" of every HTTP request it served
	// relayed receives what one WebSocket connection was sent after the switch, once it ended.
	relayed chan string
}

func newSwitcher(t *testing.T) *switcher {
	t.Helper()
	s := &switcher{relayed: make(chan string, 8)}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s.addr = ln.Addr().String()
	srv := &http.Server{Handler: http.HandlerFunc(s.serve)}
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(func() { _ = srv.Close() })
	return s
}

func (s *switcher) serve(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	s.reqs = append(s.reqs, r.Method+" "+r.URL.Path)
	s.mu.Unlock()
	switch r.URL.Path {
	case "/fake101": // a pack route answering status 101 with the headers goproxy looks for
		w.Header().Set("Upgrade", "websocket")
		w.Header().Set("Connection", "Upgrade")
		w.WriteHeader(http.StatusSwitchingProtocols)
	case "/ws", "/ws-wrong-accept":
		accept := acceptFor(r.Header.Get("Sec-WebSocket-Key"))
		if r.URL.Path == "/ws-wrong-accept" {
			accept = acceptFor("AAAAAAAAAAAAAAAAAAAAAA==")
		}
		conn, brw, err := http.NewResponseController(w).Hijack()
		if err != nil {
			return
		}
		defer conn.Close()
		_, _ = io.WriteString(conn, "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: "+accept+"\r\n\r\n")
		frame := make([]byte, len(maskedText("hello")))
		if _, err := io.ReadFull(brw, frame); err != nil {
			return
		}
		_, _ = conn.Write([]byte{0x81, 2, 'o', 'k'}) // an unmasked text frame "ok"
		rest, _ := io.ReadAll(brw)                   // until the proxy closes the connection
		s.relayed <- string(append(frame, rest...))
	default:
		_, _ = io.WriteString(w, "served")
	}
}

func (s *switcher) seen() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.reqs...)
}

// maskedText is a client text frame with payload p, masked with a zero key.
func maskedText(p string) []byte {
	return append([]byte{0x81, 0x80 | byte(len(p)), 0, 0, 0, 0}, p...)
}

const wsKey = "dGhlIHNhbXBsZSBub25jZQ==" // RFC 6455's example key

// upgradeClient is a raw client of the proxy: plain, or inside a CONNECT to the portal's port 80.
func upgradeClient(t *testing.T, p *Proxy, tunnelled bool) (net.Conn, *bufio.Reader, string) {
	t.Helper()
	if tunnelled {
		conn, br, resp := rawConnect(t, p, "portale.interno.test:80")
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("CONNECT: %d", resp.StatusCode)
		}
		return conn, br, ""
	}
	conn, err := net.DialTimeout("tcp", p.Addr(), 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = conn.Close() })
	_ = conn.SetDeadline(time.Now().Add(10 * time.Second))
	return conn, bufio.NewReader(conn), "http://portale.interno.test"
}

func sendRaw(t *testing.T, conn net.Conn, br *bufio.Reader, head string) (*http.Response, error) {
	t.Helper()
	if _, err := io.WriteString(conn, head+"\r\n\r\n"); err != nil {
		return nil, err
	}
	resp, err := http.ReadResponse(br, nil)
	if err == nil && resp.StatusCode != http.StatusSwitchingProtocols {
		_, _ = io.Copy(io.Discard, resp.Body)
		_ = resp.Body.Close()
	}
	return resp, err
}

// waitFor polls cond (a condition on what another goroutine records) until it holds or 5 s pass.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Second); !cond(); time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("%s: still not so after 5 s", what)
		}
	}
}

func decisionsOf(t *testing.T, log *syncBuffer) []Decision {
	t.Helper()
	var out []Decision
	for _, l := range log.lines() {
		var d Decision
		if err := json.Unmarshal([]byte(l), &d); err != nil {
			t.Fatalf("decision line %q: %v", l, err)
		}
		out = append(out, d)
	}
	return out
}

// TestABare101IsRefused is issue 49.4: an upstream's 101 (a pack route's status: 101) made a pipe,
// and every later request on the connection reached the upstream unjudged and unlogged, plain and
// inside a CONNECT tunnel. The 101 is refused and logged, and the connection then ends or stays
// judged: every request the upstream serves has its decision line.
func TestABare101IsRefused(t *testing.T) {
	for _, tunnelled := range []bool{false, true} {
		t.Run(map[bool]string{false: "plain", true: "in a CONNECT tunnel"}[tunnelled], func(t *testing.T) {
			up := newSwitcher(t)
			var log syncBuffer
			p := startProxy(t, Config{Rules: newFakeRules("portale.interno.test"), Hosts: map[string]string{"portale.interno.test": up.addr}, Log: &log})
			conn, br, prefix := upgradeClient(t, p, tunnelled)
			resp, err := sendRaw(t, conn, br, "GET "+prefix+"/fake101 HTTP/1.1\r\nHost: portale.interno.test")
			if err != nil || resp.StatusCode != http.StatusForbidden || resp.Header.Get(RuleHeader) != string(RuleUpgradeRefused) {
				t.Fatalf("GET /fake101: %v %v, want 403 %s", resp, err, RuleUpgradeRefused)
			}
			// The same connection: a write sent as the next request must not reach the upstream unjudged.
			_, _ = sendRaw(t, conn, br, "POST "+prefix+"/pratiche/4/elimina HTTP/1.1\r\nHost: portale.interno.test\r\nContent-Length: 0")
			reqs := up.seen()
			ds := decisionsOf(t, &log)
			judged := 0
			for _, d := range ds {
				if d.Method != http.MethodConnect {
					judged++
				}
			}
			if len(reqs) > judged {
				t.Errorf("the upstream served %v, the proxy logged %d requests: %+v", reqs, judged, ds)
			}
			refused := false
			for _, d := range ds {
				refused = refused || (d.Rule == RuleUpgradeRefused && d.Path == "/fake101" && !d.Allowed())
			}
			if !refused {
				t.Errorf("no upgrade_refused line for /fake101: %+v", ds)
			}
		})
	}
}

// TestAWebSocketIsRelayedAsFramesOnly: a genuine handshake (key and accept) switches; its messages
// are logged both ways; plain HTTP written into it afterwards closes the connection before a byte
// of it reaches the upstream. A 101 with a wrong accept, or for a request with no key, is refused.
func TestAWebSocketIsRelayedAsFramesOnly(t *testing.T) {
	for _, tunnelled := range []bool{false, true} {
		t.Run(map[bool]string{false: "plain", true: "in a CONNECT tunnel"}[tunnelled], func(t *testing.T) {
			up := newSwitcher(t)
			var log syncBuffer
			p := startProxy(t, Config{Rules: newFakeRules("portale.interno.test"), Hosts: map[string]string{"portale.interno.test": up.addr}, Log: &log})
			conn, br, prefix := upgradeClient(t, p, tunnelled)
			hs := "GET " + prefix + "/ws HTTP/1.1\r\nHost: portale.interno.test\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: " + wsKey
			resp, err := sendRaw(t, conn, br, hs)
			if err != nil || resp.StatusCode != http.StatusSwitchingProtocols {
				t.Fatalf("handshake: %v %v, want 101", resp, err)
			}
			if _, err := conn.Write(maskedText("hello")); err != nil {
				t.Fatal(err)
			}
			echo := make([]byte, 4)
			if _, err := io.ReadFull(br, echo); err != nil || string(echo[2:]) != "ok" {
				t.Fatalf("echo frame: %q %v", echo, err)
			}
			_, _ = io.WriteString(conn, "POST /pratiche/4/elimina HTTP/1.1\r\nHost: portale.interno.test\r\nContent-Length: 0\r\n\r\n")
			if _, err := br.ReadByte(); err == nil {
				t.Errorf("the connection is still open after plain HTTP in a WebSocket")
			}
			var raw string
			select {
			case raw = <-up.relayed: // once the proxy has closed the upstream connection
			case <-time.After(5 * time.Second):
				t.Fatal("the proxy did not close the upstream connection")
			}
			if strings.Contains(raw, "POST") || !strings.Contains(raw, "\x81\x85") {
				t.Errorf("the upstream received %q: want the frame and no plain HTTP", raw)
			}
			var ws []Decision
			for _, d := range decisionsOf(t, &log) {
				if d.Method == "WEBSOCKET" {
					ws = append(ws, d)
				}
			}
			const want = "after the WebSocket handshake the client sent not WebSocket framing: first byte 0x50: reserved bits set with no extension agreed: connection closed; client to server 1 message(s), 5 bytes, server to client 1 message(s), 2 bytes"
			if len(ws) != 1 || ws[0].Rule != RuleUpgradeRefused || ws[0].Reason != want {
				t.Errorf("WEBSOCKET lines %+v, want one refusal: %s", ws, want)
			}

			for _, bad := range []string{
				strings.Replace(hs, "/ws ", "/ws-wrong-accept ", 1),
				strings.Replace(hs, "Sec-WebSocket-Key: "+wsKey, "Sec-WebSocket-Key: c2hvcnQ=", 1),
			} {
				conn, br, _ := upgradeClient(t, p, tunnelled)
				resp, err := sendRaw(t, conn, br, bad)
				if err != nil || resp.StatusCode != http.StatusForbidden || resp.Header.Get(RuleHeader) != string(RuleUpgradeRefused) {
					t.Errorf("%q: %v %v, want 403 %s", strings.SplitN(bad, "\r\n", 2)[0], resp, err, RuleUpgradeRefused)
				}
			}
		})
	}
}
