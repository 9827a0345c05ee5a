package proxy

import (
	"crypto/tls"
	"io"
	"net/http"
	"slices"
	"testing"
	"time"
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

// BenchmarkProxyOverhead measures, in one run, the latency of the same loopback GET direct and through
// the proxy, interleaved so both see the same machine load, and reports p50/p99 of each, the p50 the
// proxy adds, and the proxied requests per second. The loop is bounded by b.N.
func BenchmarkProxyOverhead(b *testing.B) {
	up := newUpstream(b, "portal", false)
	p := startProxy(b, Config{Rules: newFakeRules("portale.interno.test"), Hosts: map[string]string{"portale.interno.test": up.addr()}, Log: io.Discard})
	tr := &http.Transport{Proxy: nil}
	b.Cleanup(tr.CloseIdleConnections)
	direct, proxied := &http.Client{Transport: tr}, proxiedClient(b, p)
	one := func(c *http.Client, url string) time.Duration {
		t0 := time.Now()
		resp, err := c.Get(url)
		if err != nil {
			b.Fatalf("GET %s: %v", url, err)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		_ = resp.Body.Close()
		return time.Since(t0)
	}
	var ds, ps []time.Duration
	var proxiedTotal time.Duration
	for b.Loop() {
		ds = append(ds, one(direct, up.URL+"/pratiche"))
		d := one(proxied, "http://portale.interno.test/pratiche")
		ps = append(ps, d)
		proxiedTotal += d
	}
	pct := func(xs []time.Duration, q float64) float64 {
		s := slices.Clone(xs)
		slices.Sort(s)
		return float64(s[min(len(s)-1, int(q*float64(len(s))))].Microseconds())
	}
	b.ReportMetric(pct(ds, 0.50), "direct-p50-µs")
	b.ReportMetric(pct(ds, 0.99), "direct-p99-µs")
	b.ReportMetric(pct(ps, 0.50), "proxy-p50-µs")
	b.ReportMetric(pct(ps, 0.99), "proxy-p99-µs")
	b.ReportMetric(pct(ps, 0.50)-pct(ds, 0.50), "added-p50-µs")
	b.ReportMetric(float64(len(ps))/proxiedTotal.Seconds(), "proxy-req/s")
}

// BenchmarkInterceptedGET is the GET of BenchmarkProxyGET over https://: inside one kept-alive
// CONNECT tunnel with TLS to the proxy's CA, judged and logged like the plain one.
func BenchmarkInterceptedGET(b *testing.B) {
	up := newUpstream(b, "portal", false)
	p := startProxy(b, Config{Rules: newFakeRules("portale.interno.test"), Hosts: map[string]string{"portale.interno.test": up.addr()}, Log: io.Discard})
	client := proxiedClient(b, p)
	client.Transport.(*http.Transport).TLSClientConfig = &tls.Config{RootCAs: p.CA().Pool()}
	benchGET(b, client, "https://portale.interno.test/pratiche")
}

// BenchmarkInterceptedConnect is a new CONNECT and TLS handshake for every GET (keep-alive off):
// the cost of a fresh intercepted tunnel.
func BenchmarkInterceptedConnect(b *testing.B) {
	up := newUpstream(b, "portal", false)
	p := startProxy(b, Config{Rules: newFakeRules("portale.interno.test"), Hosts: map[string]string{"portale.interno.test": up.addr()}, Log: io.Discard})
	client := proxiedClient(b, p)
	tr := client.Transport.(*http.Transport)
	tr.TLSClientConfig = &tls.Config{RootCAs: p.CA().Pool()}
	tr.DisableKeepAlives = true
	benchGET(b, client, "https://portale.interno.test/pratiche")
}
