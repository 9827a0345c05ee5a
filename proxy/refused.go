package proxy

import (
	"bytes"
	"context"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/trapline/trapline/agentkit/policy"
)

// RuleMalformedRequest is the rule of a connection whose request Go's HTTP server refused (or
// that ended mid-request) before the proxy could judge it.
const RuleMalformedRequest = policy.RuleMalformedRequest

// maxReplyCapture bounds what a connWatch keeps of the server's own answer.
const maxReplyCapture = 512

// connWatch follows one client connection so that a request Go's HTTP server refuses by itself (a
// malformed request line, a bad Host, headers over http.DefaultMaxHeaderBytes, garbage) still gets
// a decision line: net/http answers those 400/431 without calling any handler and logs nothing.
type connWatch struct {
	mu      sync.Mutex
	pending bool   // bytes of a request arrived and no handler has had it yet
	reply   []byte // what the server wrote while pending: its own refusal
}

// begin is called when bytes of a new request arrive (http.StateActive).
func (w *connWatch) begin() {
	w.mu.Lock()
	w.pending, w.reply = true, w.reply[:0]
	w.mu.Unlock()
}

// served is called when a handler has the request.
func (w *connWatch) served() {
	w.mu.Lock()
	w.pending = false
	w.mu.Unlock()
}

// wrote keeps the start of what the server writes while no handler has the request.
func (w *connWatch) wrote(b []byte) {
	w.mu.Lock()
	if w.pending && len(w.reply) < maxReplyCapture {
		w.reply = append(w.reply, b[:min(len(b), maxReplyCapture-len(w.reply))]...)
	}
	w.mu.Unlock()
}

// unjudged reports whether the connection ended on a request no handler had, and the server's
// answer to it, if any.
func (w *connWatch) unjudged() (bool, []byte) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.pending, bytes.Clone(w.reply)
}

type connWatchKey struct{}

// watchOf returns the watch of a client connection accepted by trackingListener, or nil.
func watchOf(c net.Conn) *connWatch {
	if t := trackingOf(c); t != nil {
		return t.watch
	}
	return nil
}

// connState is http.Server.ConnState: it starts a watch on each request and, when a connection
// closes on a request no handler had, records the refusal.
func (p *Proxy) connState(c net.Conn, st http.ConnState) {
	w := watchOf(c)
	if w == nil {
		return
	}
	switch st {
	case http.StateActive:
		w.begin()
	case http.StateClosed:
		if pending, reply := w.unjudged(); pending {
			p.rec.record(withDecision(Decision{Scheme: "http"}, policy.Decision{Rule: RuleMalformedRequest, Reason: refusalReason(reply, p.srv.ReadHeaderTimeout)}))
		}
	}
}

// refusalReason explains a request no handler had from the server's own answer ("HTTP/1.1 400 Bad
// Request ... 400 Bad Request: malformed Host header"), or its absence.
func refusalReason(reply []byte, headerTimeout time.Duration) string {
	if len(reply) == 0 {
		return "the connection closed before a whole request arrived (the client went away mid-request, or its request line and headers took longer than the " + headerTimeout.String() + " header timeout)"
	}
	status, rest, _ := bytes.Cut(reply, []byte("\r\n"))
	what := strings.TrimPrefix(string(status), "HTTP/1.1 ")
	if _, body, ok := bytes.Cut(rest, []byte("\r\n\r\n")); ok && len(body) > 0 {
		what = strings.ToValidUTF8(string(body), "?")
	}
	return "Go's HTTP server refused the request before the proxy could judge it: " + what
}

type bodyDeadlineKey struct{}

// serve wraps the goproxy handler: it tells the connection's watch that a handler has the request
// and bounds how long the judged part of a plain request's body may take (Config.BodyTimeout).
// CONNECT tunnels and WebSocket upgrades get no deadline: their connections live on.
func (p *Proxy) serve(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if cw, ok := r.Context().Value(connWatchKey{}).(*connWatch); ok && cw != nil {
			cw.served()
		}
		if r.Method != http.MethodConnect && !isWebSocketUpgrade(r.Header) && r.Body != nil && r.Body != http.NoBody {
			rc := http.NewResponseController(w)
			if rc.SetReadDeadline(time.Now().Add(p.opts.bodyWait)) == nil {
				r = r.WithContext(context.WithValue(r.Context(), bodyDeadlineKey{}, rc))
			}
		}
		next.ServeHTTP(w, r)
	})
}

// clearBodyDeadline lifts the body deadline serve set, once the judged part of the body is in: the
// rest streams to the upstream, and net/http's background read of an idle connection must not
// time out (it would cancel the request).
func clearBodyDeadline(r *http.Request) {
	if rc, ok := r.Context().Value(bodyDeadlineKey{}).(*http.ResponseController); ok {
		_ = rc.SetReadDeadline(time.Time{})
	}
}
