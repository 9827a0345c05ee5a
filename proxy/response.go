package proxy

import (
	"net/http"
	"strings"

	"github.com/elazarl/goproxy"
	"github.com/trapline/trapline/agentkit/policy"
)

// ResponseRules is implemented by Rules that judge response headers (*policy.Policy does). The
// proxy asks DecideResponse about every upstream response of a plain HTTP request before passing
// it on; a denied one is cut (its body is never forwarded) and answered with a 403 naming the rule,
// and the decision is logged. Rules without it pass responses unjudged.
type ResponseRules interface {
	DecideResponse(policy.Response) policy.Decision
}

var _ ResponseRules = (*policy.Policy)(nil)

// onResponse judges an upstream response's headers.
func (p *Proxy) onResponse(resp *http.Response, ctx *goproxy.ProxyCtx) *http.Response {
	rr, ok := p.opts.rules.(ResponseRules)
	if resp == nil || ctx == nil || ctx.Req == nil || !ok || resp.Header.Get(RuleHeader) != "" {
		return resp // no response, no judge, or the proxy's own denial
	}
	r := ctx.Req
	d := p.decideResponse(rr, policy.Response{
		URL:                r.URL.String(),
		ContentType:        resp.Header.Get("Content-Type"),
		ContentDisposition: resp.Header.Get("Content-Disposition"),
	})
	if d.Allow {
		return resp
	}
	scheme := strings.ToLower(r.URL.Scheme)
	rec := Decision{Method: r.Method, Scheme: scheme, Host: strings.ToLower(r.URL.Host), Path: r.URL.Path}
	if host, port, err := splitHostPort(r.URL.Host, defaultPort(scheme)); err == nil {
		rec.Host = displayHost(host, port, scheme)
	}
	p.rec.record(withVerdict(rec, d))
	if resp.Body != nil {
		_ = resp.Body.Close() // cut: not one byte of the refused body goes on
	}
	return denyResponse(r, d)
}

// decideResponse calls DecideResponse and turns a panic into a deny.
func (p *Proxy) decideResponse(rr ResponseRules, r policy.Response) (d policy.Decision) {
	defer recoverDeny(&d)
	return rr.DecideResponse(r)
}
