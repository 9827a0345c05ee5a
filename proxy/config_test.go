package proxy

import (
	"errors"
	"net/netip"
	"testing"
)

func TestConfigValidation(t *testing.T) {
	cases := []struct {
		name    string
		hosts   map[string]string
		wantErr bool
	}{
		{"empty", nil, false},
		{"name and host:port keys", map[string]string{"portale.interno.test": "127.0.0.1:8080", "a.test:8443": "127.0.0.1:9000"}, false},
		{"IPv6 target", map[string]string{"v6.test": "[::1]:8080"}, false},
		{"target is a name", map[string]string{"a.test": "localhost:8080"}, true},
		{"target without port", map[string]string{"a.test": "127.0.0.1"}, true},
		{"target port 0", map[string]string{"a.test": "127.0.0.1:0"}, true},
		{"bad key", map[string]string{"a test/x": "127.0.0.1:80"}, true},
		{"bad key port", map[string]string{"a.test:http": "127.0.0.1:80"}, true},
		{"duplicate after normalisation", map[string]string{"A.test": "127.0.0.1:80", "a.test.": "127.0.0.1:81"}, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p, err := Start(Config{Hosts: tc.hosts})
			if p != nil {
				defer func() { _ = p.Close() }()
			}
			if gotErr := err != nil; gotErr != tc.wantErr {
				t.Fatalf("Start() error = %v, want error %v", err, tc.wantErr)
			}
			if err != nil && !errors.Is(err, ErrConfig) {
				t.Errorf("error %v does not wrap ErrConfig", err)
			}
		})
	}
}

func TestListenError(t *testing.T) {
	p, err := Start(Config{Listen: "127.0.0.1:-1"})
	if p != nil {
		_ = p.Close()
	}
	if err == nil || errors.Is(err, ErrConfig) {
		t.Errorf("Start() error = %v, want a listen error", err)
	}
}

func TestHostLookup(t *testing.T) {
	m, err := newHostMap(map[string]string{
		"portale.interno.test": "127.0.0.1:1001",
		"api.test:8080":        "127.0.0.1:1002",
		"[::1]":                "127.0.0.1:1003",
		"bücher.test":          "127.0.0.1:1004",
	})
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		addr    string
		connect bool
		want    string // "" means unmapped
	}{
		{"portale.interno.test:80", false, "127.0.0.1:1001"},
		{"PORTALE.interno.test.:80", false, "127.0.0.1:1001"},
		{"portale.interno.test:443", true, "127.0.0.1:1001"},
		{"portale.interno.test:443", false, ""},
		{"portale.interno.test:8080", true, ""},
		{"api.test:8080", false, "127.0.0.1:1002"},
		{"api.test:80", false, ""},
		{"[::1]:80", false, "127.0.0.1:1003"},
		{"xn--bcher-kva.test:80", false, "127.0.0.1:1004"},
		{"evil.example.test:80", false, ""},
	}
	for _, tc := range cases {
		host, port, err := splitHostPort(tc.addr, "")
		if err != nil {
			t.Fatalf("split %q: %v", tc.addr, err)
		}
		got, ok := m.lookup(host, port, tc.connect)
		want, wantOK := netip.AddrPort{}, tc.want != ""
		if wantOK {
			want = netip.MustParseAddrPort(tc.want)
		}
		if ok != wantOK || got.addr != want || got.tls {
			t.Errorf("lookup(%q, connect=%v) = %v, %v; want %v, %v", tc.addr, tc.connect, got, ok, want, wantOK)
		}
	}
}

func TestDialerRefusesUnmapped(t *testing.T) {
	d := dialer{hosts: hostMap{}, conns: newConnSet()}
	_, err := d.DialContext(t.Context(), "tcp", "portale.interno.test:80")
	if !errors.Is(err, errUnmappedHost) {
		t.Errorf("DialContext() error = %v, want errUnmappedHost", err)
	}
}
