package proxy

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"strings"
	"time"

	"github.com/trapline/trapline/agentkit/policy"
)

// errUnmappedHost is returned by the dialer for a destination that Config.Hosts does not map.
var errUnmappedHost = errors.New("destination not in the proxy host map")

// dialTimeout bounds one dial to a mapped address (always a local or staging address).
const dialTimeout = 10 * time.Second

// hostMap is the validated Config.Hosts: normalised keys ("name" or "name:port") to literal
// IP:port targets.
type hostMap map[string]netip.AddrPort

// newHostMap validates and normalises Config.Hosts.
func newHostMap(in map[string]string) (hostMap, error) {
	m := make(hostMap, len(in))
	for key, target := range in {
		host, port, err := splitHostPort(key, "")
		if err != nil {
			return nil, fmt.Errorf("hosts key %q: %w", policy.RedactUserinfo(key), err)
		}
		ap, err := netip.ParseAddrPort(strings.TrimSpace(target))
		if err != nil {
			return nil, fmt.Errorf("hosts[%q] = %q: target must be a literal IP:port: %w", key, target, err)
		}
		if ap.Port() == 0 {
			return nil, fmt.Errorf("hosts[%q] = %q: target port must not be 0", key, target)
		}
		k := joinKey(host, port)
		if _, dup := m[k]; dup {
			return nil, fmt.Errorf("hosts key %q: duplicate of another key after normalisation (%s)", key, k)
		}
		m[k] = ap
	}
	return m, nil
}

// lookup returns the address mapped to host:port. A key without port matches port 80, and port 443
// when connect is true.
func (m hostMap) lookup(host, port string, connect bool) (netip.AddrPort, bool) {
	if ap, ok := m[joinKey(host, port)]; ok {
		return ap, true
	}
	if port == "80" || (connect && port == "443") {
		ap, ok := m[joinKey(host, "")]
		return ap, ok
	}
	return netip.AddrPort{}, false
}

// dialer dials only mapped addresses. connect says whether it serves CONNECT tunnels (which may use
// a port-less key for port 443). Every connection it returns is tracked so Close can cut it.
type dialer struct {
	hosts   hostMap
	conns   *connSet
	connect bool
}

// DialContext looks addr up in the host map and dials the mapped literal address; it never
// resolves a name.
func (d dialer) DialContext(ctx context.Context, network, addr string) (net.Conn, error) {
	host, port, err := splitHostPort(addr, "")
	if err != nil {
		return nil, fmt.Errorf("trapline proxy: dial %s: %w", addr, err)
	}
	target, ok := d.hosts.lookup(host, port, d.connect)
	if !ok {
		return nil, fmt.Errorf("trapline proxy: dial %s: %w", addr, errUnmappedHost)
	}
	nd := net.Dialer{Timeout: dialTimeout}
	c, err := nd.DialContext(ctx, "tcp", target.String())
	if err != nil {
		return nil, fmt.Errorf("trapline proxy: dial %s (mapped to %s): %w", addr, target, err)
	}
	return d.conns.track(c), nil
}

// splitHostPort normalises "host[:port]" with policy.NormalizeHost, so the proxy and the policy
// agree on what a host is (lower case, no trailing dot, punycode, canonical IP, IPv6 without
// brackets). A missing port becomes defaultPort (which may be ""); port 0 is refused.
func splitHostPort(s, defaultPort string) (host, port string, err error) {
	host, port, err = policy.NormalizeHost(strings.TrimSpace(s))
	if err != nil {
		return "", "", fmt.Errorf("normalise host: %w", err)
	}
	if port == "0" {
		return "", "", fmt.Errorf("normalise host %q: port 0", s)
	}
	if port == "" {
		port = defaultPort
	}
	return host, port, nil
}

// joinKey is the host map key for host and an optional port.
func joinKey(host, port string) string {
	if port == "" {
		if strings.Contains(host, ":") {
			return "[" + host + "]"
		}
		return host
	}
	return net.JoinHostPort(host, port)
}

// displayHost is the host as the decision log shows it: with its port unless the port is the
// default one for the scheme.
func displayHost(host, port, scheme string) string {
	if port == defaultPort(scheme) {
		port = ""
	}
	return joinKey(host, port)
}

// defaultPort is the port a URL of this scheme uses when it names none.
func defaultPort(scheme string) string {
	switch scheme {
	case "https", "wss":
		return "443"
	case "http", "ws":
		return "80"
	}
	return ""
}
