package proxy

import (
	"io"
	"net/http"
	"testing"
)

// TestHealthPath: with HealthPath set, a direct GET of that path answers 200 and logs nothing; other
// direct requests are still refused and logged. Without it, the path is refused like any other.
func TestHealthPath(t *testing.T) {
	get := func(p *Proxy, path string) int {
		t.Helper()
		resp, err := http.Get(p.URL() + path)
		if err != nil {
			t.Fatal(err)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		_ = resp.Body.Close()
		return resp.StatusCode
	}
	p := startProxy(t, Config{Rules: newFakeRules(), HealthPath: "/healthz"})
	if code := get(p, "/healthz"); code != http.StatusOK {
		t.Fatalf("GET /healthz: %d, want 200", code)
	}
	if n := len(p.Decisions()); n != 0 {
		t.Fatalf("the health check logged %d decisions, want 0", n)
	}
	if code := get(p, "/healthz/x"); code != http.StatusBadRequest {
		t.Fatalf("GET /healthz/x: %d, want 400", code)
	}
	if ds := p.Decisions(); len(ds) != 1 || ds[0].Rule != RuleNotAProxyRequest {
		t.Fatalf("decisions %+v, want one not_a_proxy_request", ds)
	}
	off := startProxy(t, Config{Rules: newFakeRules()})
	if code := get(off, "/healthz"); code != http.StatusBadRequest {
		t.Fatalf("without HealthPath, GET /healthz: %d, want 400", code)
	}
}
