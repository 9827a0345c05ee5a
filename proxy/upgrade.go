package proxy

import (
	"crypto/sha1"
	"encoding/base64"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"

	"github.com/elazarl/goproxy"
	"github.com/trapline/trapline/agentkit/policy"
)

// A 101 makes a pipe (issue 49.4): once goproxy sees an upstream switch protocols it relays raw
// bytes both ways until one side closes, so whatever the client writes next (plain HTTP requests
// included) reaches the upstream unjudged and unlogged. The proxy therefore lets a connection switch
// protocols only on a genuine WebSocket handshake, and then relays nothing but WebSocket framing:
//
//   - a 101 is admitted only for a request that is a WebSocket handshake (Upgrade: websocket,
//     Connection: upgrade, a Sec-WebSocket-Key of 16 bytes) answered with Upgrade: websocket,
//     Connection: upgrade and the Sec-WebSocket-Accept that key calls for (RFC 6455 section 4);
//     every other 101 is cut (the upstream connection closed) and answered with a 403,
//     RuleUpgradeRefused, one decision line;
//   - a response that is no 101 loses its Upgrade header and Connection's upgrade token (goproxy
//     would otherwise take the client's connection for a relay it cannot start);
//   - after an admitted switch, both directions are read as WebSocket frames (wsStream); the first
//     byte that is not WebSocket framing (an unmasked client frame, an unknown opcode, reserved bits
//     no extension was agreed for, plain HTTP) closes both connections, with a RuleUpgradeRefused
//     line; a connection that ends well has one line (method WEBSOCKET) counting its messages and
//     their bytes each way, never their content.
//
// What it does not do: judge a message's content (a WebSocket message is no HTTP request; the
// upgrade request was judged like any GET).

// RuleUpgradeRefused refuses a 101 that is no genuine WebSocket handshake, and closes a switched
// connection whose bytes are not WebSocket framing.
const RuleUpgradeRefused = policy.RuleUpgradeRefused

// webSocketGUID is RFC 6455's constant appended to the key for the accept value.
const webSocketGUID = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"

// clientConnKey is the request context key of the client connection a request arrived on (the
// plain listener's, or the tunnel's), so a relay the proxy stops can close it: goproxy never closes
// a connection it hijacked for a WebSocket.
type clientConnKey struct{}

// isSwitch reports whether resp switches protocols or says it would (status 101, or an Upgrade
// header, which goproxy alone reads as a WebSocket).
func isSwitch(resp *http.Response) bool {
	return resp.StatusCode == http.StatusSwitchingProtocols || resp.Header.Get("Upgrade") != "" ||
		headerHasToken(resp.Header, "Connection", "upgrade")
}

// judgeSwitch decides a 101 for req: allowed only for a genuine WebSocket handshake.
func judgeSwitch(req *http.Request, resp *http.Response) policy.Decision {
	refuse := func(format string, args ...any) policy.Decision {
		return policy.Decision{Rule: RuleUpgradeRefused, Reason: "the upstream answered 101 Switching Protocols, " +
			fmt.Sprintf(format, args...) + ": only a WebSocket handshake may switch protocols"}
	}
	key := req.Header.Get("Sec-WebSocket-Key")
	switch {
	case !isWebSocketUpgrade(req.Header):
		return refuse("but the request asked for no WebSocket upgrade")
	case !validKey(key):
		return refuse("but the request's Sec-WebSocket-Key is missing or not 16 bytes in base64")
	case !isWebSocketUpgrade(resp.Header):
		return refuse("without Upgrade: websocket and Connection: upgrade")
	case resp.Header.Get("Sec-WebSocket-Accept") != acceptFor(key):
		return refuse("with a Sec-WebSocket-Accept that does not answer the request's key")
	}
	return policy.Decision{Allow: true, Rule: policy.RuleAllowed, Reason: "a WebSocket handshake: key and accept match"}
}

func validKey(key string) bool {
	b, err := base64.StdEncoding.DecodeString(key)
	return err == nil && len(b) == 16
}

// acceptFor is the Sec-WebSocket-Accept a server answers key with (RFC 6455 section 4.2.2, which
// fixes SHA-1 here: a handshake check, no security rests on the hash).
func acceptFor(key string) string {
	h := sha1.Sum([]byte(key + webSocketGUID))
	return base64.StdEncoding.EncodeToString(h[:])
}

// stripUpgrade removes what makes goproxy take a response for a WebSocket: the Upgrade header and
// Connection's upgrade token (the whole Connection header: it is hop-by-hop).
func stripUpgrade(h http.Header) {
	h.Del("Upgrade")
	if headerHasToken(h, "Connection", "upgrade") {
		h.Del("Connection")
	}
}

// onSwitch is onResponse for a response that switches protocols or says it would. It returns the
// response to pass on: a non-101 without its upgrade headers, a genuine WebSocket switch with its
// body wrapped in a framing relay, or the 403 of a refused switch.
func (p *Proxy) onSwitch(resp *http.Response, ctx *goproxy.ProxyCtx, forged policy.Decision) *http.Response {
	if resp.StatusCode != http.StatusSwitchingProtocols {
		stripUpgrade(resp.Header)
		return nil // judged on like any response
	}
	r := ctx.Req
	d := forged
	if d.Rule == "" {
		d = judgeSwitch(r, resp)
	}
	rw, ok := resp.Body.(io.ReadWriteCloser)
	if d.Allow && !ok {
		d = policy.Decision{Rule: RuleUpgradeRefused, Reason: "the upstream answered 101 Switching Protocols with no connection to relay"}
	}
	if !d.Allow {
		p.rec.record(withDecision(requestRecord(r), d))
		if resp.Body != nil {
			_ = resp.Body.Close() // the upstream connection: nothing more goes to or comes from it
		}
		deny := denyResponse(r, d)
		deny.Header.Set("Connection", "close") // the client may have started speaking the new protocol
		return deny
	}
	client, _ := r.Context().Value(clientConnKey{}).(net.Conn)
	ext := resp.Header.Get("Sec-WebSocket-Extensions") != ""
	resp.Body = &wsRelay{upstream: rw, client: client, rec: requestRecord(r), log: p.rec.record,
		toServer: wsStream{masked: true, ext: ext}, toClient: wsStream{ext: ext}}
	return resp
}

// requestRecord is the start of a decision line about r.
func requestRecord(r *http.Request) Decision {
	scheme := strings.ToLower(r.URL.Scheme)
	rec := Decision{Method: r.Method, Scheme: scheme, Host: strings.ToLower(r.URL.Host), Path: r.URL.Path}
	if host, port, err := splitHostPort(r.URL.Host, defaultPort(scheme)); err == nil {
		rec.Host = displayHost(host, port, scheme)
	}
	if isWebSocketUpgrade(r.Header) {
		rec.Scheme = map[string]string{"https": "wss"}[scheme]
		if rec.Scheme == "" {
			rec.Scheme = "ws"
		}
	}
	return rec
}

// wsRelay is the body of an admitted WebSocket switch, which goproxy relays: Write carries the
// client's bytes to the upstream, Read the upstream's to the client. Each direction is read as
// WebSocket frames; the first byte that is not closes both connections. The connection's messages
// are logged as one line when it ends (a DevTools connection carries thousands: one line each would
// flood the log).
type wsRelay struct {
	upstream io.ReadWriteCloser
	client   net.Conn // nil when unknown (then only the upstream is closed)
	rec      Decision
	log      func(Decision)

	toServer, toClient wsStream // each fed by one goroutine of goproxy's relay

	mu     sync.Mutex // guards what follows
	counts [2]wsCount // client to server, server to client
	closed bool
}

// wsCount counts the messages of one direction.
type wsCount struct{ messages, bytes uint64 }

func (c wsCount) String() string { return fmt.Sprintf("%d message(s), %d bytes", c.messages, c.bytes) }

func (w *wsRelay) Write(b []byte) (int, error) {
	if err := w.check(&w.toServer, 0, b); err != nil {
		return 0, err
	}
	return w.upstream.Write(b)
}

func (w *wsRelay) Read(b []byte) (int, error) {
	n, err := w.upstream.Read(b)
	if cerr := w.check(&w.toClient, 1, b[:n]); cerr != nil {
		return 0, cerr
	}
	if err != nil {
		w.end(policy.Decision{Allow: true, Rule: policy.RuleAllowed}, "WebSocket closed") // so does the client's side: goproxy would leave it open
	}
	return n, err
}

// check feeds b to s (direction dir: 0 client to server, 1 server to client) and counts the messages
// it ends; bytes that are not WebSocket framing end the relay with a refusal.
func (w *wsRelay) check(s *wsStream, dir int, b []byte) error {
	msgs, err := s.feed(b)
	w.mu.Lock()
	for _, m := range msgs {
		w.counts[dir].messages++
		w.counts[dir].bytes += m.size
	}
	w.mu.Unlock()
	if err != nil {
		what := [2]string{"the client", "the server"}[dir]
		w.end(policy.Decision{Rule: RuleUpgradeRefused}, fmt.Sprintf("after the WebSocket handshake %s sent %v: connection closed", what, err))
	}
	return err
}

// end closes the upstream and the client connection and logs the connection's line, once.
func (w *wsRelay) end(d policy.Decision, why string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed {
		return
	}
	w.closed = true
	d.Reason = fmt.Sprintf("%s; client to server %v, server to client %v", why, w.counts[0], w.counts[1])
	rec := w.rec
	rec.Method = "WEBSOCKET"
	w.log(withDecision(rec, d)) // before the close, which a client may be waiting on
	_ = w.upstream.Close()
	if w.client != nil {
		_ = w.client.Close()
	}
}

// Close ends the relay (goproxy does not call it; Read and check do).
func (w *wsRelay) Close() error {
	w.end(policy.Decision{Allow: true, Rule: policy.RuleAllowed}, "WebSocket closed")
	return nil
}
