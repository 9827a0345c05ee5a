package browser

import (
	"github.com/mxschmitt/playwright-go"
	"github.com/trapline/trapline/agentkit/policy"
)

// gateRequest is what the route gate hands to policy.DecideRequest: method, URL, whether it is a
// navigation, and, where Playwright has it (request.postData), the body and its Content-Type. A
// body Playwright cannot give (an error) is passed as truncated, so DecideRequest fails closed with
// RuleBodyTooLarge rather than judging a request without it. limit is Policy.BodyLimit.
func gateRequest(req playwright.Request, limit int) policy.Request {
	r := policy.Request{Method: req.Method(), URL: req.URL(), Navigation: req.IsNavigationRequest()}
	r.ContentType = req.Headers()["content-type"]
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
