package browser

import (
	"net/http"

	"github.com/mxschmitt/playwright-go"
	"github.com/trapline/trapline/agentkit/policy"
)

// gateRequest is what the route gate hands to policy.DecideRequest: method, URL, whether it is a
// navigation, and, where Playwright has it (request.postData), the body and its Content-Type. A
// body Playwright cannot give (an error) is passed as truncated, so DecideRequest fails closed with
// RuleBodyTooLarge rather than judging a request without it. limit is Policy.BodyLimit.
func gateRequest(req playwright.Request, limit int) policy.Request {
	r := policy.Request{Method: req.Method(), URL: req.URL(), Navigation: req.IsNavigationRequest()}
	hs := req.Headers()
	r.ContentType = hs["content-type"]
	// The headers the page set (Playwright's provisional headers: what the page asked for, without
	// the cookies the network layer adds) go to the judgement too: a method override
	// (X-HTTP-Method-Override) is judged as the method it names, as at the proxy.
	r.Header = make(http.Header, len(hs))
	for k, v := range hs {
		r.Header.Add(k, v)
	}
	body, err := req.PostDataBuffer()
	switch {
	case err != nil:
		r.BodyTruncated = true
	case len(body) >= limit:
		r.Body, r.BodyTruncated = body[:limit], true
	default:
		r.Body = body
	}
	return r
}
