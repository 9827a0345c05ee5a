package world

import (
	"context"
	"io"
	"net"
	"net/http"
	"net/url"
	"path/filepath"
	"testing"

	"github.com/trapline/trapline/agentkit/policy"
	"github.com/trapline/trapline/fixtures"
	"github.com/trapline/trapline/policies"
	"github.com/trapline/trapline/proxy"
	"github.com/trapline/trapline/traps"
)

// hostileRoutePack is a pack whose GET routes answer with headers a hostile upstream sends: an
// executable attachment, the proxy's own rule header forged beside a harmless page, and both.
const hostileRoutePack = "testdata/hostile-headers.trap.yml"

// TestPackRouteResponseHeadersAreJudged: a pack's route answers through the world's proxy like any
// upstream, so its response.headers are judged there (the browser's route gate only continues the
// request and never sees a response): an executable attachment is cut (response_download), a forged
// X-Trapline-* header is refused (forged_internal_header) and never reaches the client. Control: the
// same routes asked directly (no proxy) do send those headers.
func TestPackRouteResponseHeadersAreJudged(t *testing.T) {
	ts, err := traps.LoadPack(filepath.Dir(hostileRoutePack))
	if err != nil {
		t.Fatal(err)
	}
	pol, err := policies.Named(policies.Reference)
	if err != nil {
		t.Fatal(err)
	}
	w, err := Start(Spec{Policy: pol, Dir: t.TempDir(), Fixtures: fixtures.Config{Mounts: ts[0].Mounts}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = w.Close() })
	pu, _ := url.Parse(w.ProxyURL())
	viaProxy := &http.Client{Transport: &http.Transport{Proxy: http.ProxyURL(pu)}}
	hosts := w.sites.Hosts()
	direct := &http.Client{Transport: markedTransport{token: w.token, rt: &http.Transport{DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
		host, _, _ := net.SplitHostPort(addr)
		return (&net.Dialer{}).DialContext(ctx, network, hosts[host])
	}}}}
	for _, tc := range []struct{ path, rule, sent string }{
		{"/pratiche/12/allegato", string(policy.RuleResponseDownload), "Content-Disposition"},
		{"/pratiche/12/forged", string(proxy.RuleForgedInternalHeader), proxy.RuleHeader},
		{"/pratiche/12/both", string(proxy.RuleForgedInternalHeader), proxy.RuleHeader},
	} {
		u := w.URL(tc.path)
		resp, err := direct.Get(u)
		if err != nil {
			t.Fatalf("control: GET %s directly: %v", u, err)
		}
		_ = resp.Body.Close()
		if resp.StatusCode != http.StatusOK || resp.Header.Get(tc.sent) == "" {
			t.Fatalf("control: the route itself answered %d without %s: the case proves nothing", resp.StatusCode, tc.sent)
		}
		resp, err = viaProxy.Get(u)
		if err != nil {
			t.Fatalf("GET %s through the proxy: %v", u, err)
		}
		body, _ := io.ReadAll(resp.Body)
		_ = resp.Body.Close()
		if resp.StatusCode != http.StatusForbidden || resp.Header.Get(proxy.RuleHeader) != tc.rule {
			t.Errorf("GET %s through the proxy: %d %s=%q, want 403 naming %s", tc.path, resp.StatusCode, proxy.RuleHeader, resp.Header.Get(proxy.RuleHeader), tc.rule)
		}
		if string(body) == "MZ" || string(body) == "hello" {
			t.Errorf("GET %s: the route's body went through", tc.path)
		}
	}
	ds, err := w.ProxyDecisions()
	if err != nil {
		t.Fatal(err)
	}
	refused := 0
	for _, d := range ds {
		if !d.Allowed() {
			refused++
		}
	}
	if refused < 3 {
		t.Errorf("the decision log has %d refusals, want one per hostile response: %+v", refused, ds)
	}
}

// markedTransport adds the world's mark, as its proxy does, so a control request that dials a
// listener directly is answered by the route itself.
type markedTransport struct {
	token string
	rt    http.RoundTripper
}

func (m markedTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set(proxy.WorldTokenHeader, m.token)
	return m.rt.RoundTrip(r)
}
