package proxy

import (
	"fmt"
	"io"
	"net/http"
	"net/textproto"
	"strings"

	"github.com/elazarl/goproxy"
	"github.com/trapline/trapline/agentkit/policy"
)

// RuleHeader is the response header that names the rule on every denial the proxy answers, for
// clients that cannot show the body.
const RuleHeader = "X-Trapline-Rule"

// onRequest rules on a plain (absolute-form) HTTP request: the rules first, then the host map.
//
// Navigation is inferred from the Accept header containing "text/html": Chromium sends Sec-Fetch-*
// headers only to potentially trustworthy origins (https, localhost), not to the plain-http staging
// names, while every document request it makes accepts text/html. A sub-resource fetch that
// accepts text/html is therefore judged as a navigation, which is the stricter reading.
func (p *Proxy) onRequest(r *http.Request, _ *goproxy.ProxyCtx) (*http.Request, *http.Response) {
	scheme := strings.ToLower(r.URL.Scheme)
	host, port, hostErr := splitHostPort(r.URL.Host, defaultPort(scheme))
	rec := Decision{
		Method: r.Method,
		Scheme: scheme,
		Host:   strings.ToLower(r.URL.Host),
		Path:   r.URL.Path,
	}
	if hostErr == nil {
		rec.Host = displayHost(host, port, scheme)
	}
	if isWebSocketUpgrade(r.Header) {
		rec.Scheme = "ws"
		if scheme == "https" {
			rec.Scheme = "wss"
		}
	}

	if door, ok := p.doors.get(host, port); ok && hostErr == nil {
		d := judgeDoor(r, scheme, door)
		p.rec.record(withDecision(rec, d))
		if !d.Allow {
			return r, denyResponse(r, d)
		}
		r.Header.Del("Origin") // checked by the door; Chromium would refuse it (devtools.go)
		stripHopByHop(r.Header)
		return r, nil
	}

	body, truncated, bodyErr := p.readBody(r)
	d := p.decideRequest(policy.Request{
		Method:        r.Method,
		URL:           r.URL.String(),
		Navigation:    strings.Contains(strings.ToLower(strings.Join(r.Header.Values("Accept"), ",")), "text/html"),
		ContentType:   r.Header.Get("Content-Type"),
		Body:          body,
		BodyTruncated: truncated,
		Header:        r.Header, // the method-override headers: a request is judged as every method it says it is
	})
	if bodyErr != nil {
		d = policy.Decision{Rule: policy.RuleBodyUnreadable, Reason: bodyErr.Error()}
	}
	if d.Allow {
		if hostErr != nil {
			d = unmapped(r.URL.Host, hostErr.Error())
		} else if _, ok := p.opts.hosts.lookup(host, port, scheme == "https"); !ok {
			d = unmapped(joinKey(host, port), "not in the proxy host map")
		}
	}
	p.rec.record(withDecision(rec, d))
	if !d.Allow {
		return r, denyResponse(r, d)
	}
	stripHopByHop(r.Header)
	p.markForWorld(r.Header)
	return r, nil
}

// WorldTokenHeader carries Config.WorldToken to the world's listeners (fixtures.Admission): an
// internal header, so no response may carry it back (response.go strips every X-Trapline-*).
const WorldTokenHeader = InternalHeaderPrefix + "World"

// markForWorld drops every copy of WorldTokenHeader the client sent (in any spelling Go reads as
// it) and, when the proxy has a world token, sets it: only a request the proxy let through carries
// it to the world.
func (p *Proxy) markForWorld(h http.Header) {
	for name := range h {
		if strings.EqualFold(name, WorldTokenHeader) {
			delete(h, name)
		}
	}
	if p.opts.token != "" {
		h.Set(WorldTokenHeader, p.opts.token)
	}
}

// onConnect rules on a CONNECT tunnel: DecideHost first, then the host map. An allowed tunnel is
// intercepted (mitm.go): every request inside it is judged by onRequest like a plain one.
func (p *Proxy) onConnect(target string, ctx *goproxy.ProxyCtx) (*goproxy.ConnectAction, string) {
	host, port, hostErr := splitHostPort(target, "443")
	rec := Decision{Method: http.MethodConnect, Scheme: "tunnel", Host: strings.ToLower(target)}
	if hostErr == nil {
		if port == "443" {
			rec.Scheme = "https"
		}
		rec.Host = displayHost(host, port, rec.Scheme)
	}

	if _, ok := p.doors.get(host, port); ok && hostErr == nil {
		d := policy.Decision{Allow: true, Rule: RuleDevToolsDoor, Reason: "a tunnel to the browser's own DevTools port: opened, and every request in it judged by the door (only an extension's WebSocket upgrade passes)"}
		p.rec.record(withDecision(rec, d))
		return p.interceptAction(host, port), target
	}
	d := p.decideHost(target)
	if d.Allow {
		if hostErr != nil {
			d = unmapped(target, hostErr.Error())
		} else if _, ok := p.opts.hosts.lookup(host, port, true); !ok {
			d = unmapped(joinKey(host, port), "not in the proxy host map")
		}
	}
	p.rec.record(withDecision(rec, d))
	if !d.Allow {
		ctx.Resp = denyResponse(ctx.Req, d)
		return goproxy.RejectConnect, target
	}
	return p.interceptAction(host, port), target
}

// nonProxy answers a request addressed to the proxy itself.
func (p *Proxy) nonProxy(w http.ResponseWriter, r *http.Request) {
	if p.opts.health != "" && r.Method == http.MethodGet && r.URL.Path == p.opts.health && r.URL.RawQuery == "" {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		_, _ = io.WriteString(w, "ok\n") // the checker went away; nothing to do
		return
	}
	d := policy.Decision{
		Rule:   RuleNotAProxyRequest,
		Reason: fmt.Sprintf("%s %s was sent to the proxy itself; use this address as an HTTP proxy", r.Method, r.URL.Path),
	}
	p.rec.record(withDecision(Decision{
		Method: r.Method,
		Scheme: "http",
		Host:   strings.ToLower(r.Host),
		Path:   r.URL.Path,
	}, d))
	w.Header().Set(RuleHeader, d.Rule.String())
	http.Error(w, strings.TrimSuffix(denyBody(d), "\n"), http.StatusBadRequest)
}

// decideRequest calls Rules.DecideRequest and turns a panic into a deny.
func (p *Proxy) decideRequest(req policy.Request) (d policy.Decision) {
	defer recoverDeny(&d)
	return p.opts.rules.DecideRequest(req)
}

// decideHost calls Rules.DecideHost and turns a panic into a deny.
func (p *Proxy) decideHost(host string) (d policy.Decision) {
	defer recoverDeny(&d)
	return p.opts.rules.DecideHost(host)
}

func recoverDeny(d *policy.Decision) {
	if v := recover(); v != nil {
		*d = policy.Decision{Rule: RuleRulesPanic, Reason: fmt.Sprintf("rules panicked: %v", v)}
	}
}

func unmapped(dest, why string) policy.Decision {
	return policy.Decision{Rule: RuleUnmappedHost, Reason: fmt.Sprintf("%s: %s", dest, why)}
}

// withDecision fills rec's choice, rule and reason from d. The reason is logged, so a URL's user
// information in it is redacted whoever wrote it.
func withDecision(rec Decision, d policy.Decision) Decision {
	rec.Choice = Deny
	if d.Allow {
		rec.Choice = Allow
	}
	rec.Rule = d.Rule
	rec.Reason = policy.RedactUserinfo(d.Reason)
	return rec
}

// denyBody is the text body of a denial.
func denyBody(d policy.Decision) string {
	return fmt.Sprintf("trapline proxy: denied by rule %s: %s\n", d.Rule, d.Reason)
}

// denyResponse is the 403 the proxy answers a denied request with. Its body is a denialBody, the
// out-of-band mark by which onResponse knows the proxy's own answer.
func denyResponse(r *http.Request, d policy.Decision) *http.Response {
	text := denyBody(d)
	resp := goproxy.NewResponse(r, goproxy.ContentTypeText+"; charset=utf-8", http.StatusForbidden, text)
	resp.Body = denialBody{strings.NewReader(text)}
	resp.Header.Set(RuleHeader, d.Rule.String())
	return resp
}

// denialBody is the body of the proxy's own 403s. Only this package makes one, so a response that
// carries one is the proxy's and no header an upstream sends can pass for it.
type denialBody struct{ *strings.Reader }

func (denialBody) Close() error { return nil }

// stripHopByHop removes the hop-by-hop headers (RFC 9110 section 7.6.1), those named in
// Connection, and every Proxy-* header. goproxy removes Proxy-Connection, Proxy-Authenticate,
// Proxy-Authorization and Connection itself; this also covers the others. A WebSocket handshake
// keeps Connection and Upgrade, which it needs end to end.
func stripHopByHop(h http.Header) {
	ws := isWebSocketUpgrade(h)
	keep := func(name string) bool { return ws && (name == "Connection" || name == "Upgrade") }
	for _, v := range h.Values("Connection") {
		for _, name := range strings.Split(v, ",") {
			name = textproto.CanonicalMIMEHeaderKey(textproto.TrimString(name))
			if name != "" && !keep(name) {
				h.Del(name)
			}
		}
	}
	for name := range h {
		canon := textproto.CanonicalMIMEHeaderKey(name)
		if keep(canon) {
			continue
		}
		switch {
		case strings.HasPrefix(canon, "Proxy-"),
			canon == "Connection", canon == "Keep-Alive", canon == "Te", canon == "Trailer",
			canon == "Transfer-Encoding", canon == "Upgrade":
			delete(h, name)
		}
	}
}

// isWebSocketUpgrade reports whether h asks for a WebSocket upgrade.
func isWebSocketUpgrade(h http.Header) bool {
	return headerHasToken(h, "Connection", "upgrade") && headerHasToken(h, "Upgrade", "websocket")
}

func headerHasToken(h http.Header, name, token string) bool {
	for _, v := range h.Values(name) {
		for _, t := range strings.Split(v, ",") {
			if strings.EqualFold(textproto.TrimString(t), token) {
				return true
			}
		}
	}
	return false
}
