package harness

import (
	"net/http"
	"net/http/httptest"
	"net/url"
	"os/exec"
	"strings"
	"testing"

	"golang.org/x/net/http/httpproxy"
)

// NoProxy names each endpoint as host:port and as the bare host (curl and reqwest skip an entry with a
// port), without repeats, from URLs or host:port.
func TestNoProxyForms(t *testing.T) {
	for _, tc := range []struct {
		in   []string
		want string
	}{
		{[]string{"http://127.0.0.1:9222"}, "127.0.0.1:9222,127.0.0.1"},
		{[]string{"http://127.0.0.1:9222", "http://127.0.0.1:41234/v1"}, "127.0.0.1:9222,127.0.0.1:41234,127.0.0.1"},
		{[]string{"127.0.0.1:5", "http://localhost:6/x"}, "127.0.0.1:5,localhost:6,127.0.0.1,localhost"},
		{[]string{"http://[::1]:7"}, "[::1]:7,::1"},
		{[]string{"http://127.0.0.1"}, "127.0.0.1"},
		{[]string{"", "http://%zz"}, ""},
	} {
		if got := NoProxy(tc.in...); got != tc.want {
			t.Errorf("NoProxy(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// The value works for the clients that read it: Go's (golang.org/x/net/http/httpproxy, what net/http
// reads), Python's requests and curl (the last two skip an entry with a port for an IP address) reach
// a loopback endpoint directly while their proxy variable names a proxy that does not exist.
func TestNoProxyIsHonouredByClients(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { _, _ = w.Write([]byte("direct")) }))
	defer srv.Close()
	noProxy := NoProxy("http://127.0.0.1:9222", srv.URL+"/v1")
	cfg := httpproxy.Config{HTTPProxy: "http://127.0.0.1:1", NoProxy: noProxy}
	u, _ := url.Parse(srv.URL + "/v1/chat/completions")
	if p, err := cfg.ProxyFunc()(u); err != nil || p != nil {
		t.Errorf("Go's proxy for %s under NO_PROXY=%s: %v %v, want none", u, noProxy, p, err)
	}
	// Python's requests, when installed: an IP address matches only a bare entry.
	if py, err := exec.LookPath("python3"); err == nil {
		cmd := exec.Command(py, "-c", "import sys, requests.utils as u; print(u.should_bypass_proxies(sys.argv[1], None))", srv.URL+"/v1")
		cmd.Env = []string{"no_proxy=" + noProxy, "http_proxy=http://127.0.0.1:1"}
		if out, err := cmd.Output(); err == nil && strings.TrimSpace(string(out)) != "True" {
			t.Errorf("requests under no_proxy=%s bypasses the proxy: %s, want True", noProxy, out)
		}
	}
	curl, err := exec.LookPath("curl")
	if err != nil {
		t.Skip("no curl")
	}
	for _, np := range []string{noProxy, strings.Split(noProxy, ",")[1]} { // also the host:port entry alone...
		cmd := exec.Command(curl, "-sS", "--max-time", "5", srv.URL+"/v1/x")
		cmd.Env = []string{"http_proxy=http://127.0.0.1:1", "HTTP_PROXY=http://127.0.0.1:1", "no_proxy=" + np, "NO_PROXY=" + np}
		out, err := cmd.CombinedOutput()
		if np == noProxy && (err != nil || string(out) != "direct") {
			t.Errorf("curl under no_proxy=%s: %v %s, want the endpoint reached directly", np, err, out)
		}
		if np != noProxy && err == nil {
			// ...which curl skips: the bare host is what makes it work (if this curl honours ports, fine).
			t.Logf("this curl honours no_proxy=%s too", np)
		}
	}
}
