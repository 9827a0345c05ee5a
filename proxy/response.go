package proxy

import (
	"io"
	"net/http"
	"net/textproto"
	"slices"
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

// InternalHeaderPrefix starts the name of every header the proxy writes itself (RuleHeader). An
// upstream cannot speak for the proxy: such headers are stripped from every upstream response,
// and a response that carried one is refused with RuleForgedInternalHeader.
const InternalHeaderPrefix = "X-Trapline-"

// onResponse judges an upstream response's headers. The proxy's own denials are recognised by
// their body's Go type, which nothing outside the process can produce, never by a header.
func (p *Proxy) onResponse(resp *http.Response, ctx *goproxy.ProxyCtx) *http.Response {
	if resp == nil || ctx == nil || ctx.Req == nil {
		return resp
	}
	if _, own := resp.Body.(denialBody); own {
		return resp // the proxy's own denial
	}
	forged := forgedDecision(stripInternal(resp.Header))
	if isSwitch(resp) {
		if out := p.onSwitch(resp, ctx, forged); out != nil {
			return out // a switch, admitted or refused
		}
	}
	if resp.ContentLength < 0 && resp.Body != nil {
		// A chunked (or HTTP/2) body can end with trailers, which goproxy forwards once the body is
		// read: strip the internal ones there too. A body of known length has no trailers.
		resp.Body = &trailerStripper{ReadCloser: resp.Body, resp: resp}
	}
	var d policy.Decision
	switch rr, ok := p.opts.rules.(ResponseRules); {
	case forged.Rule != "":
		d = forged
	case ok:
		d = p.decideResponse(rr, policy.Response{
			URL:                ctx.Req.URL.String(),
			ContentType:        resp.Header.Get("Content-Type"),
			ContentDisposition: resp.Header.Get("Content-Disposition"),
			Header:             resp.Header, // every copy of both headers: a client may honour any
		})
	default:
		return resp // no judge, nothing forged
	}
	if d.Allow {
		return resp
	}
	r := ctx.Req
	p.rec.record(withDecision(requestRecord(r), d))
	if resp.Body != nil {
		_ = resp.Body.Close() // cut: not one byte of the refused body goes on
	}
	return denyResponse(r, d)
}

// forgedDecision refuses a response that carried the proxy's own headers (names); none: no decision.
func forgedDecision(names []string) policy.Decision {
	if len(names) == 0 {
		return policy.Decision{}
	}
	return policy.Decision{
		Rule:   RuleForgedInternalHeader,
		Reason: "the upstream response carried the proxy's own header " + strings.Join(names, ", ") + ": only the proxy writes it",
	}
}

// decideResponse calls DecideResponse and turns a panic into a deny.
func (p *Proxy) decideResponse(rr ResponseRules, r policy.Response) (d policy.Decision) {
	defer recoverDeny(&d)
	return rr.DecideResponse(r)
}

// stripInternal deletes every header of h whose name starts with InternalHeaderPrefix and returns
// their canonical names, sorted.
func stripInternal(h http.Header) []string {
	var names []string
	for name := range h {
		if canon := textproto.CanonicalMIMEHeaderKey(name); strings.HasPrefix(canon, InternalHeaderPrefix) {
			names = append(names, canon)
			delete(h, name)
		}
	}
	slices.Sort(names)
	return names
}

// trailerStripper strips internal headers from the response's trailers, which net/http fills in
// when the body reaches its end.
type trailerStripper struct {
	io.ReadCloser
	resp *http.Response
}

func (t *trailerStripper) Read(b []byte) (int, error) {
	n, err := t.ReadCloser.Read(b)
	if err != nil {
		stripInternal(t.resp.Trailer)
	}
	return n, err
}

func (t *trailerStripper) Close() error {
	err := t.ReadCloser.Close()
	stripInternal(t.resp.Trailer)
	return err
}
