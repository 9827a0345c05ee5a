package proxy

import (
	"io"
	"net/http"
	"testing"
)

func benchGET(b *testing.B, client *http.Client, url string) {
	b.Helper()
	b.ReportAllocs()
	for b.Loop() {
		resp, err := client.Get(url)
		if err != nil {
			b.Fatalf("GET %s: %v", url, err)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		_ = resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			b.Fatalf("GET %s: status %d", url, resp.StatusCode)
		}
	}
}

// BenchmarkDirectGET is the baseline: a loopback GET with no proxy.
func BenchmarkDirectGET(b *testing.B) {
	up := newUpstream(b, "portal", false)
	tr := &http.Transport{Proxy: nil}
	b.Cleanup(tr.CloseIdleConnections)
	benchGET(b, &http.Client{Transport: tr}, up.URL+"/pratiche")
}

// BenchmarkProxyGET is the same GET through the proxy, with a decision and a log record each time.
func BenchmarkProxyGET(b *testing.B) {
	up := newUpstream(b, "portal", false)
	p := startProxy(b, Config{Rules: newFakeRules("portale.interno.test"), Hosts: map[string]string{"portale.interno.test": up.addr()}, Log: io.Discard})
	benchGET(b, proxiedClient(b, p), "http://portale.interno.test/pratiche")
}
