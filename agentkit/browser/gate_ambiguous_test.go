package browser

import (
	"testing"

	"github.com/trapline/trapline/agentkit/policy"
)

// TestGateRefusesAmbiguousBodies: the route gate judges a body as the proxy does (issue 49.5): a
// JSON key given twice, in any spelling, and a name in both the query and the body are refused as
// ambiguous_request. Control: the same write with one copy passes the same policy.
func TestGateRefusesAmbiguousBodies(t *testing.T) {
	pol, err := policy.Load("../../policies/reference.yml")
	if err != nil {
		t.Fatal(err)
	}
	const stato = "http://portale.interno.test/pratiche/4/stato"
	jsonReq := func(url, body string) fakeRequest {
		return fakeRequest{method: "POST", url: url, headers: map[string]string{"content-type": "application/json"}, body: []byte(body)}
	}
	for _, req := range []fakeRequest{
		jsonReq(stato, `{"stato":"eliminata","stato":"chiusa"}`),
		jsonReq(stato, `{"st\u0061to":"eliminata","stato":"chiusa"}`),
		jsonReq(stato+"?stato=chiusa", `{"stato":"chiusa"}`),
	} {
		if d := pol.DecideRequest(gateRequest(req, pol.BodyLimit())); d.Rule != policy.RuleAmbiguousRequest {
			t.Errorf("%s %s: the route gate decided %s (%s), want %s", req.url, req.body, d.Rule, d.Reason, policy.RuleAmbiguousRequest)
		}
	}
	if d := pol.DecideRequest(gateRequest(jsonReq(stato, `{"stato":"chiusa"}`), pol.BodyLimit())); !d.Allow {
		t.Fatalf("control: the plain write is refused (%s: %s): the case proves nothing", d.Rule, d.Reason)
	}
}
