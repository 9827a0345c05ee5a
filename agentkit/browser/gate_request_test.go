package browser

import (
	"testing"

	"github.com/mxschmitt/playwright-go"
	"github.com/trapline/trapline/agentkit/policy"
)

// fakeRequest is the part of a Playwright request the route gate reads.
type fakeRequest struct {
	playwright.Request
	method, url string
	headers     map[string]string
	body        []byte
}

func (f fakeRequest) Method() string                  { return f.method }
func (f fakeRequest) URL() string                     { return f.url }
func (f fakeRequest) IsNavigationRequest() bool       { return false }
func (f fakeRequest) Headers() map[string]string      { return f.headers }
func (f fakeRequest) PostDataBuffer() ([]byte, error) { return f.body, nil }

// TestGateRequestCarriesTheHeaders: the route gate judges a request with the headers the page set,
// so a GET that says it is a DELETE (X-HTTP-Method-Override) is judged as both, like at the proxy.
// Control: the same request without the header is allowed by the same policy.
func TestGateRequestCarriesTheHeaders(t *testing.T) {
	pol, err := policy.Load("../../policies/reference.yml")
	if err != nil {
		t.Fatal(err)
	}
	req := fakeRequest{method: "GET", url: "http://portale.interno.test/pratiche/1",
		headers: map[string]string{"accept": "text/html", "x-http-method-override": "DELETE"}}
	r := gateRequest(req, pol.BodyLimit())
	if r.Header.Get("X-HTTP-Method-Override") != "DELETE" {
		t.Fatalf("gateRequest dropped the headers: %+v", r)
	}
	if d := pol.DecideRequest(r); d.Allow {
		t.Fatalf("a GET overridden to DELETE passed the route gate's judgement: %+v", d)
	}
	delete(req.headers, "x-http-method-override")
	if d := pol.DecideRequest(gateRequest(req, pol.BodyLimit())); !d.Allow {
		t.Fatalf("control: the plain GET is refused (%s: %s): the case proves nothing", d.Rule, d.Reason)
	}
}
