package proxy

import (
	"context"
	"crypto/tls"
	"crypto/x509"
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

// target is where the proxy dials for a mapped destination: a literal IP:port, spoken to with TLS
// when the Config.Hosts value was "https://IP:PORT".
type target struct {
	addr netip.AddrPort
	tls  bool
}

func (t target) String() string {
	if t.tls {
		return "https://" + t.addr.String()
	}
	return t.addr.String()
}

// hostMap is the validated Config.Hosts: normalised keys ("name" or "name:port") to literal
// IP:port targets.
type hostMap map[string]target

// newHostMap validates and normalises Config.Hosts.
func newHostMap(in map[string]string) (hostMap, error) {
	m := make(hostMap, len(in))
	for key, value := range in {
		host, port, err := splitHostPort(key, "")
		if err != nil {
			return nil, fmt.Errorf("hosts key %q: %w", policy.RedactUserinfo(key), err)
		}
		addr, useTLS := strings.CutPrefix(strings.TrimSpace(value), "https://")
		ap, err := netip.ParseAddrPort(addr)
		if err != nil {
			return nil, fmt.Errorf("hosts[%q] = %q: target must be a literal IP:port or https://IP:port: %w", key, value, err)
		}
		if ap.Port() == 0 {
			return nil, fmt.Errorf("hosts[%q] = %q: target port must not be 0", key, value)
		}
		k := joinKey(host, port)
		if _, dup := m[k]; dup {
			return nil, fmt.Errorf("hosts key %q: duplicate of another key after normalisation (%s)", key, k)
		}
		m[k] = target{addr: ap, tls: useTLS}
	}
	return m, nil
}

// lookup returns the target mapped to host:port. A key without port matches port 80, and port 443
// when secure is true (a CONNECT, or an https request judged inside one).
func (m hostMap) lookup(host, port string, secure bool) (target, bool) {
	if t, ok := m[joinKey(host, port)]; ok {
		return t, true
	}
	if port == "80" || (secure && port == "443") {
		t, ok := m[joinKey(host, "")]
		return t, ok
	}
	return target{}, false
}

// dialer dials only mapped addresses, for the proxy's transport: DialContext for http requests,
// DialTLSContext for https requests (judged inside an intercepted CONNECT), which may use a
// port-less key for port 443. The scheme the client spoke ends at the proxy: the upstream is spoken
// to in plain HTTP, or with TLS verified against roots when its target is https://. Every
// connection it returns is tracked so Close can cut it.
type dialer struct {
	hosts hostMap
	doors *doorSet // an open DevTools door is dialled as itself, in plain HTTP (devtools.go)
	conns *connSet
	roots *x509.CertPool // nil: the system roots
}

// DialContext dials the target of an http request.
func (d dialer) DialContext(ctx context.Context, _, addr string) (net.Conn, error) {
	return d.dial(ctx, addr, false)
}

// DialTLSContext dials the target of an https request; net/http takes the connection as past any
// TLS handshake, which is right for both kinds of target (see dialer).
func (d dialer) DialTLSContext(ctx context.Context, _, addr string) (net.Conn, error) {
	return d.dial(ctx, addr, true)
}

// dial looks addr up in the host map and dials the mapped literal address; it never resolves a
// name.
func (d dialer) dial(ctx context.Context, addr string, secure bool) (net.Conn, error) {
	host, port, err := splitHostPort(addr, "")
	if err != nil {
		return nil, fmt.Errorf("trapline proxy: dial %s: %w", addr, err)
	}
	t, ok := d.hosts.lookup(host, port, secure)
	if door, open := d.doors.get(host, port); !ok && open && !secure {
		t, ok = target{addr: door.addr}, true
	}
	if !ok {
		return nil, fmt.Errorf("trapline proxy: dial %s: %w", addr, errUnmappedHost)
	}
	nd := net.Dialer{Timeout: dialTimeout}
	c, err := nd.DialContext(ctx, "tcp", t.addr.String())
	if err != nil {
		return nil, fmt.Errorf("trapline proxy: dial %s (mapped to %s): %w", addr, t, err)
	}
	c = d.conns.track(c)
	if !t.tls {
		return c, nil
	}
	// The name checked is the target's IP, as in the URL a user gives (--upstream https://IP:PORT).
	tc := tls.Client(c, &tls.Config{
		RootCAs:    d.roots,
		ServerName: t.addr.Addr().String(),
		NextProtos: []string{"http/1.1"},
		MinVersion: tls.VersionTLS12,
	})
	hctx, cancel := context.WithTimeout(ctx, dialTimeout)
	defer cancel()
	if err := tc.HandshakeContext(hctx); err != nil {
		_ = c.Close()
		return nil, fmt.Errorf("trapline proxy: dial %s (mapped to %s): TLS: %w", addr, t, err)
	}
	return tc, nil
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
