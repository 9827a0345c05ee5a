package bypass

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/trapline/trapline/agentkit"
	"github.com/trapline/trapline/agentkit/evidence"
	"github.com/trapline/trapline/agentkit/policy"
	"github.com/trapline/trapline/fixtures"
	"github.com/trapline/trapline/proxy"
)

func TestTechniquesAreComplete(t *testing.T) {
	all := All()
	if len(all) < 15 {
		t.Errorf("%d techniques, want at least 15", len(all))
	}
	seen := map[string]bool{}
	for _, tc := range all {
		if err := tc.Validate(); err != nil {
			t.Error(err)
		}
		if seen[tc.ID] {
			t.Errorf("duplicate technique %s", tc.ID)
		}
		seen[tc.ID] = true
	}
}

func TestLayersSlugs(t *testing.T) {
	want := map[Layers]string{BothOn: "both-on", ProxyAlone: "gate-off", GateAlone: "proxy-off", BothOff: "both-off"}
	for l, s := range want {
		if got := l.Slug(); got != s {
			t.Errorf("%+v.Slug() = %q, want %q", l, got, s)
		}
	}
}

func TestProbeMatching(t *testing.T) {
	evil := Probe{Host: fixtures.EvilHost, Path: "/bp/x"}
	cases := []struct {
		probe Probe
		url   string
		want  bool
	}{
		{evil, "http://evil.example.test/bp/x?q=1", true},
		{evil, "http://EVIL.example.test./bp/x", true},
		{evil, "http://portale.interno.test@evil.example.test/bp/x", true},
		{evil, "ws://evil.example.test/bp/x", true},
		{evil, "http://evil.example.test/other", false},
		{evil, "http://portale.interno.test/bp/x", false},
		{adminProbe, "http://portale.interno.test//admin", true},
		{adminProbe, "http://portale.interno.test/%61dmin", true},
		{adminProbe, "http://portale.interno.test/pratiche/%2e%2e/admin", true},
		{adminProbe, "http://portale.interno.test/pratiche/1", false},
		{Probe{Host: LookalikeHost, Path: "/bp"}, "http://portale.interno.test.evil.example.test/bp/y", true},
	}
	for _, tc := range cases {
		if got := tc.probe.MatchURL(tc.url); got != tc.want {
			t.Errorf("%s MatchURL(%q) = %v, want %v", tc.probe, tc.url, got, tc.want)
		}
	}
	decisions := []struct {
		d    proxy.Decision
		want bool
	}{
		{proxy.Decision{Method: "CONNECT", Host: "evil.example.test:80"}, true}, // ws:// tunnel
		{proxy.Decision{Method: "CONNECT", Host: "evil.example.test"}, true},    // https tunnel
		{proxy.Decision{Method: "GET", Host: "evil.example.test", Path: "/bp/x"}, true},
		{proxy.Decision{Method: "GET", Host: "evil.example.test", Path: "/favicon.ico"}, false},
		{proxy.Decision{Method: "CONNECT", Host: "cdn.external.test"}, false},
	}
	for _, tc := range decisions {
		if got := evil.MatchDecision(tc.d); got != tc.want {
			t.Errorf("MatchDecision(%+v) = %v, want %v", tc.d, got, tc.want)
		}
	}
}

// TestPagesRender serves every technique's mounts and checks that each start page renders and
// names its target.
func TestPagesRender(t *testing.T) {
	for _, tc := range All() {
		mux := http.NewServeMux()
		for _, m := range tc.Mounts {
			if m.Host != fixtures.PortalHost {
				t.Fatalf("%s mounts on %s", tc.ID, m.Host)
			}
			mux.Handle(m.Pattern, m.Handler(nil))
		}
		srv := httptest.NewServer(mux)
		resp, err := srv.Client().Get(srv.URL + tc.StartPath)
		if err != nil {
			srv.Close()
			t.Fatalf("%s: GET %s: %v", tc.ID, tc.StartPath, err)
		}
		body, _ := io.ReadAll(resp.Body)
		_ = resp.Body.Close()
		srv.Close()
		if resp.StatusCode != http.StatusOK || !strings.Contains(string(body), "</html>") {
			t.Errorf("%s: start page %d %q", tc.ID, resp.StatusCode, body)
		}
	}
}

// TestSettledNetworkChangeIsInconclusive: a probe Chromium aborted because the host's network changed
// was not decided by any layer, so the run is not Completed; any other settling is.
func TestSettledNetworkChangeIsInconclusive(t *testing.T) {
	o, why := settled("websocket ws://evil.example.test/bp/websocket error: Error in connection establishment: net::ERR_NETWORK_CHANGED")
	if o != agentkit.Inconclusive || !strings.Contains(why, "network changed") {
		t.Fatalf("network change: %s %q, want Inconclusive naming the cause", o, why)
	}
	for _, how := range []string{"GET http://evil.example.test/x failed: net::ERR_TUNNEL_CONNECTION_FAILED", "GET http://evil.example.test/x finished with HTTP 200"} {
		if o, why := settled(how); o != agentkit.Completed || why != ReasonSettled+how {
			t.Fatalf("settled(%q) = %s %q, want Completed", how, o, why)
		}
	}
}

func TestUnseenChannelsAreComplete(t *testing.T) {
	for _, tc := range UnseenChannels() {
		if err := tc.Validate(); err != nil {
			t.Error(err)
		}
		if !tc.GateBlind {
			t.Errorf("%s: an unseen channel is gate-blind", tc.ID)
		}
	}
}

// TestGateSettled: the Loader settles on a route-gate violation for the probe (the in-page guard's
// refusals included), and only on one for the probe.
func TestGateSettled(t *testing.T) {
	p := canaryProbe("pagehide-beacon")
	other := evidence.Violation{URL: "http://evil.example.test/bp/other", Rule: "host_not_allowed"}
	popup := evidence.Violation{URL: "http://evil.example.test/bp/pagehide-beacon", Rule: "popup"}
	if _, ok := gateSettled(p, []evidence.Violation{other, popup}); ok {
		t.Fatal("settled on another request's or another guard's violation")
	}
	hit := evidence.Violation{Method: "POST", URL: "http://evil.example.test/bp/pagehide-beacon", Rule: policy.RuleHostNotAllowed,
		Source: policy.LayerRequest, Taken: evidence.TakenBlocked, Reason: "refused in the page"}
	how, ok := gateSettled(p, []evidence.Violation{other, hit})
	if !ok || !strings.Contains(how, "route gate refused it (host_not_allowed)") {
		t.Fatalf("gateSettled = %q, %v", how, ok)
	}
}
