package proxy

import (
	"bufio"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/elazarl/goproxy"
	"github.com/trapline/trapline/agentkit/policy"
)

// A CONNECT tunnel is never passed through blind: its content would bypass every path, body,
// operation and write rule. An allowed CONNECT (DecideHost, then the host map) is intercepted:
//
//   - The proxy answers 200 and reads the first byte. A TLS ClientHello is answered with a
//     certificate for the CONNECT's host, signed by Config.CA through goproxy's own signer
//     (goproxy.TLSConfigFromCA, cached in a goproxy.CertStorage), so the proxy sees the requests in
//     the clear. A client that does not trust that CA fails the handshake: refused, rule
//     RuleTunnelUnjudged. Plain HTTP inside the tunnel (Chromium sends ws:// this way) is read as
//     it is. Anything else is refused the same way.
//   - Every request read from the tunnel goes through the same goproxy handlers as a plain HTTP
//     request (onRequest, onResponse): it is judged and logged one by one, with scheme https when
//     the client spoke TLS. A request naming another host or port than the CONNECT's is refused
//     (RuleTunnelHost): what was judged is what is dialled.
//   - The upstream is then dialled by the host map like any other request (dialer): a world's plain
//     listener in plain HTTP, an https:// target with TLS.
//
// Why not goproxy.MitmConnect as it is: its loop reports a failed handshake or an unreadable request
// only to its logger, so a CONNECT the proxy could not judge would have no line in the decision log.
// The proxy therefore takes the connection (goproxy.ConnectHijack), does the handshake itself with
// goproxy's TLS config, and serves the requests with net/http's server (keep-alive, 100-continue,
// WebSocket hijacking, header timeouts), handing each one to goproxy's ServeHTTP: the request and
// response handlers are goproxy's, exactly as for plain HTTP.
//
// What has no decision line: a tunnel the client closes before sending a byte (a browser's unused
// preconnect; nothing was asked), and a request line inside a tunnel that net/http cannot parse
// (answered 400 by net/http before any handler; nothing is forwarded). goproxy's ConnectHijack
// does not pass on bytes a client sent before the 200 (Chromium, curl and Go wait for it); such a
// client stalls and is refused after tunnelStartTimeout.

// tunnelStartTimeout bounds how long a client has, after the 200, to start its first request or
// TLS handshake and to finish the handshake.
const tunnelStartTimeout = 30 * time.Second

// tunnelIdleTimeout closes a kept-alive tunnel with no request for this long; the client opens a
// new one when it needs it.
const tunnelIdleTimeout = 2 * time.Minute

// tlsRecordHandshake is the first byte of a TLS ClientHello record.
const tlsRecordHandshake = 0x16

// tunnel is one intercepted CONNECT: its normalised target and the scheme the client spoke in it.
type tunnel struct {
	host, port string
	scheme     string // "https" after a TLS handshake, "http" otherwise
}

// interceptAction is the ConnectAction for an allowed CONNECT to host:port.
func (p *Proxy) interceptAction(host, port string) *goproxy.ConnectAction {
	return &goproxy.ConnectAction{
		Action: goproxy.ConnectHijack,
		Hijack: func(_ *http.Request, client net.Conn, ctx *goproxy.ProxyCtx) {
			p.intercept(client, ctx, tunnel{host: host, port: port})
		},
	}
}

// intercept serves one allowed CONNECT: see the comment at the top of this file.
func (p *Proxy) intercept(client net.Conn, ctx *goproxy.ProxyCtx, t tunnel) {
	if _, err := io.WriteString(client, "HTTP/1.1 200 Connection established\r\n\r\n"); err != nil {
		_ = client.Close()
		return
	}
	_ = client.SetReadDeadline(time.Now().Add(tunnelStartTimeout))
	br := bufio.NewReader(client)
	first, err := br.Peek(1)
	if err != nil {
		_ = client.Close()
		if errors.Is(err, os.ErrDeadlineExceeded) {
			p.refuseTunnel(t, "tunnel", fmt.Sprintf("the client sent nothing in the tunnel for %s", tunnelStartTimeout))
		}
		return // closed before a byte: nothing was asked, nothing reached anyone
	}
	var conn net.Conn = &peekedConn{Conn: client, r: br}
	t.scheme = "http"
	switch {
	case first[0] == tlsRecordHandshake:
		tc, err := p.handshake(conn, ctx, t.host)
		if err != nil {
			_ = conn.Close()
			p.refuseTunnel(t, "https", err.Error())
			return
		}
		conn, t.scheme = tc, "https"
	case first[0] < 'A' || first[0] > 'Z': // every HTTP method starts with an upper-case letter
		_ = conn.Close()
		p.refuseTunnel(t, "tunnel", fmt.Sprintf("the client spoke neither TLS nor HTTP/1.x in the tunnel (first byte 0x%02x)", first[0]))
		return
	}
	_ = client.SetReadDeadline(time.Time{})
	srv := &http.Server{
		Handler:           p.tunnelHandler(t, ctx.Proxy),
		ReadHeaderTimeout: 30 * time.Second,
		IdleTimeout:       tunnelIdleTimeout,
		ErrorLog:          p.opts.errorLog,
		ConnContext: func(ctx context.Context, c net.Conn) context.Context {
			return context.WithValue(ctx, clientConnKey{}, c) // a relay the proxy stops closes it (upgrade.go)
		},
	}
	_ = srv.Serve(newOneConnListener(conn)) // returns once the connection is closed
}

// handshake terminates the client's TLS with a certificate for host signed by the proxy's CA.
func (p *Proxy) handshake(conn net.Conn, ctx *goproxy.ProxyCtx, host string) (*tls.Conn, error) {
	cfg, err := p.tlsConfig(host, ctx)
	if err != nil {
		return nil, fmt.Errorf("sign a certificate for %s: %w", host, err)
	}
	cfg = cfg.Clone()
	cfg.NextProtos = []string{"http/1.1"} // the requests are read by net/http's HTTP/1 server
	cfg.MinVersion = tls.VersionTLS12
	tc := tls.Server(conn, cfg)
	hctx, cancel := context.WithTimeout(context.Background(), tunnelStartTimeout)
	defer cancel()
	if err := tc.HandshakeContext(hctx); err != nil {
		return nil, fmt.Errorf("TLS handshake with the client failed (does it trust this world's CA?): %w", err)
	}
	return tc, nil
}

// refuseTunnel logs the refusal of an allowed CONNECT whose content cannot be judged.
func (p *Proxy) refuseTunnel(t tunnel, scheme, why string) {
	p.rec.record(withDecision(Decision{
		Method: http.MethodConnect,
		Scheme: scheme,
		Host:   displayHost(t.host, t.port, scheme),
	}, policy.Decision{Rule: RuleTunnelUnjudged, Reason: why}))
}

// tunnelKey is the context key of the tunnel a request was read from.
type tunnelKey struct{}

// tunnelHandler makes each request read from tunnel t absolute (the tunnel's scheme, host and port)
// and hands it to goproxy, which runs the same handlers as for a plain HTTP request. A request that
// names another host or port than the tunnel's is refused: the proxy judges and dials one
// destination, the CONNECT's.
func (p *Proxy) tunnelHandler(t tunnel, px http.Handler) http.Handler {
	dest := displayHost(t.host, t.port, t.scheme)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		claimed := r.Host
		if r.URL.IsAbs() {
			claimed = r.URL.Host
		}
		if claimed != "" {
			if host, port, err := splitHostPort(claimed, t.port); err != nil || host != t.host || port != t.port {
				d := policy.Decision{Rule: RuleTunnelHost, Reason: fmt.Sprintf("the request names host %q inside a tunnel to %s", claimed, joinKey(t.host, t.port))}
				p.rec.record(withDecision(Decision{Method: r.Method, Scheme: t.scheme, Host: dest, Path: r.URL.Path}, d))
				w.Header().Set(RuleHeader, d.Rule.String())
				w.Header().Set("Connection", "close")
				http.Error(w, strings.TrimSuffix(denyBody(d), "\n"), http.StatusForbidden)
				return
			}
		}
		r.URL.Scheme = t.scheme
		r.URL.Host = dest
		r.Host = dest
		px.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), tunnelKey{}, t)))
	})
}

// peekedConn reads through the bufio.Reader that peeked at the tunnel's first byte.
type peekedConn struct {
	net.Conn
	r *bufio.Reader
}

func (c *peekedConn) Read(b []byte) (int, error) { return c.r.Read(b) }

// oneConnListener hands out one connection, then blocks until that connection is closed and
// reports net.ErrClosed, so http.Server.Serve returns when the tunnel ends.
type oneConnListener struct {
	conn net.Conn
	once sync.Once
	done chan struct{}
	sent bool
	mu   sync.Mutex
}

func newOneConnListener(c net.Conn) *oneConnListener {
	l := &oneConnListener{done: make(chan struct{})}
	l.conn = &closeNotifyConn{Conn: c, closed: func() { l.once.Do(func() { close(l.done) }) }}
	return l
}

func (l *oneConnListener) Accept() (net.Conn, error) {
	l.mu.Lock()
	if !l.sent {
		l.sent = true
		l.mu.Unlock()
		return l.conn, nil
	}
	l.mu.Unlock()
	<-l.done
	return nil, net.ErrClosed
}

func (l *oneConnListener) Close() error {
	l.once.Do(func() { close(l.done) })
	return nil
}

func (l *oneConnListener) Addr() net.Addr { return l.conn.LocalAddr() }

// closeNotifyConn calls closed when it is closed.
type closeNotifyConn struct {
	net.Conn
	closeOnce sync.Once
	closed    func()
}

func (c *closeNotifyConn) Close() error {
	err := c.Conn.Close()
	c.closeOnce.Do(c.closed)
	return err
}
