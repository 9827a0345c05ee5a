package proxy

import (
	"errors"
	"strings"
	"testing"
)

// TestListenIsLoopbackUnlessAllowed: a listen address on every interface or another host's
// address is refused with ErrConfig unless AllowNonLoopback is set (issue 28.8); with it, URL names
// an address a client can dial.
func TestListenIsLoopbackUnlessAllowed(t *testing.T) {
	for _, listen := range []string{"0.0.0.0:0", ":0", "[::]:0", "192.0.2.1:0", "example.test:0"} {
		p, err := Start(Config{Listen: listen})
		if p != nil {
			_ = p.Close()
		}
		if !errors.Is(err, ErrConfig) || !strings.Contains(err.Error(), "AllowNonLoopback") {
			t.Errorf("Start(Listen %q) = %v, want ErrConfig naming AllowNonLoopback", listen, err)
		}
	}
	for _, listen := range []string{"127.0.0.1:0", "127.0.0.2:0", "localhost:0", "[::1]:0", ""} {
		p, err := Start(Config{Listen: listen})
		if err != nil {
			if strings.Contains(listen, "::1") && strings.Contains(err.Error(), "cannot assign") {
				continue // no IPv6 loopback on this machine
			}
			t.Errorf("Start(Listen %q): %v", listen, err)
			continue
		}
		if p.URL() != "http://"+p.Addr() {
			t.Errorf("Listen %q: URL %s, want http://%s", listen, p.URL(), p.Addr())
		}
		_ = p.Close()
	}

	w := newWorld(t)
	p := startProxy(t, Config{Rules: newFakeRules("portale.interno.test"), Hosts: w.hosts, Listen: "0.0.0.0:0", AllowNonLoopback: true})
	if !strings.HasPrefix(p.URL(), "http://127.0.0.1:") || p.ClientURLs()[0] != p.URL() {
		t.Fatalf("URL %s (ClientURLs %v) on every interface, want http://127.0.0.1:PORT first", p.URL(), p.ClientURLs())
	}
	resp, body := send(t, proxiedClient(t, p), newRequest(t, "GET", "http://portale.interno.test/", nil))
	if resp.StatusCode != 200 || string(body) != "hello from portal" {
		t.Errorf("through %s: %d %q", p.URL(), resp.StatusCode, body)
	}
}
