package world

import (
	"io"
	"net/http"
	"net/url"
	"testing"

	"github.com/trapline/trapline/agentkit/policy"
	"github.com/trapline/trapline/fixtures"
	"github.com/trapline/trapline/proxy"
)

// TestProxyDecisionsAreAllOfThem: the proxy keeps only its latest decisions in memory (issue
// 28.6), so the world reads them back from its log: past the in-memory bound, none is lost.
func TestProxyDecisionsAreAllOfThem(t *testing.T) {
	w, err := Start(Spec{Off: policy.Off(policy.GuardProxyRules), Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	pu, _ := url.Parse(w.ProxyURL())
	tr := &http.Transport{Proxy: http.ProxyURL(pu)}
	defer tr.CloseIdleConnections()
	c := &http.Client{Transport: tr}
	const n = proxy.DefaultKeepDecisions + 5
	for range n {
		resp, err := c.Get("http://" + fixtures.PortalHost + "/")
		if err != nil {
			t.Fatal(err)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		_ = resp.Body.Close()
	}
	ds, err := w.ProxyDecisions()
	if err != nil || len(ds) != n {
		t.Fatalf("ProxyDecisions: %d decisions, %v; want all %d", len(ds), err, n)
	}
}
