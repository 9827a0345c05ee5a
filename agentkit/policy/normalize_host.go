package policy

import (
	"fmt"
	"net/netip"
	"strconv"
	"strings"
	"unicode/utf8"

	"golang.org/x/net/idna"
)

// NormalizeHost splits an optional port off h and reduces the host to the form host rules are
// matched on: lower case, no trailing dot, internationalised names as punycode (IDNA Lookup
// profile, which also maps fullwidth and other compatibility forms), IP addresses in canonical form
// and IPv6 without brackets. "Portale.Interno.Test.:0443" gives ("portale.interno.test", "443");
// "[::1]:80" gives ("::1", "80"). port is "" when h has none.
//
// A URL ("http://host", "host/path", "user:pw@host") is refused as "a host, not a URL". Errors wrap
// ErrInvalidHost and never repeat user information (RedactUserinfo).
func NormalizeHost(h string) (host, port string, err error) {
	orig := redactHost(h)
	if strings.Contains(h, "://") || strings.ContainsAny(h, "/\\@?#") {
		return "", "", fmt.Errorf("%w: %q: want a host (or host:port), not a URL", ErrInvalidHost, orig)
	}
	if !utf8.ValidString(h) {
		return "", "", fmt.Errorf("%w: %q: not valid UTF-8", ErrInvalidHost, orig)
	}
	switch {
	case strings.HasPrefix(h, "["):
		end := strings.IndexByte(h, ']')
		if end < 0 {
			return "", "", fmt.Errorf("%w: %q: missing ]", ErrInvalidHost, orig)
		}
		host, rest := h[1:end], h[end+1:]
		if rest != "" {
			p, ok := strings.CutPrefix(rest, ":")
			if !ok {
				return "", "", fmt.Errorf("%w: %q: unexpected %q after ]", ErrInvalidHost, orig, rest)
			}
			port = p
		}
		ip, err := netip.ParseAddr(host)
		if err != nil || !ip.Is6() {
			return "", "", fmt.Errorf("%w: %q: not an IPv6 address in brackets", ErrInvalidHost, orig)
		}
		if port, err = normalizePort(orig, port); err != nil {
			return "", "", err
		}
		return ip.String(), port, nil
	case strings.Count(h, ":") > 1:
		ip, err := netip.ParseAddr(h)
		if err != nil {
			// netip's message repeats the input and reads as if an IPv6 address was meant.
			return "", "", fmt.Errorf("%w: %q: more than one colon, and not an IPv6 address", ErrInvalidHost, orig)
		}
		return ip.String(), "", nil
	default:
		if i := strings.LastIndexByte(h, ':'); i >= 0 {
			h, port = h[:i], h[i+1:]
		}
	}
	if port, err = normalizePort(orig, port); err != nil {
		return "", "", err
	}
	h = strings.TrimSuffix(h, ".")
	if h == "" {
		return "", "", fmt.Errorf("%w: %q: empty host name", ErrInvalidHost, orig)
	}
	if ip, err := netip.ParseAddr(h); err == nil {
		return ip.String(), port, nil
	}
	ascii, err := idna.Lookup.ToASCII(h)
	if err != nil {
		return "", "", fmt.Errorf("%w: %q: %w", ErrInvalidHost, orig, err)
	}
	// Mapping may have produced a trailing dot (an ideographic full stop, say).
	ascii = strings.ToLower(strings.TrimSuffix(ascii, "."))
	if ascii == "" || strings.HasSuffix(ascii, ".") || strings.HasPrefix(ascii, ".") || strings.Contains(ascii, "..") {
		return "", "", fmt.Errorf("%w: %q: empty label", ErrInvalidHost, orig)
	}
	return ascii, port, nil
}

// normalizePort checks a port (digits, 0-65535) and drops leading zeros; "" stays "".
func normalizePort(orig, p string) (string, error) {
	if p == "" {
		return "", nil
	}
	for i := 0; i < len(p); i++ {
		if p[i] < '0' || p[i] > '9' {
			return "", fmt.Errorf("%w: %q: port %q is not a number", ErrInvalidHost, orig, p)
		}
	}
	n, err := strconv.Atoi(p)
	if err != nil || n > 65535 {
		return "", fmt.Errorf("%w: %q: port %q out of range", ErrInvalidHost, orig, p)
	}
	return strconv.Itoa(n), nil
}

// hostPort joins a normalised host and port the way StaticAssets entries are written.
func hostPort(host, port string) string {
	if port == "" {
		return host
	}
	if strings.Contains(host, ":") {
		return "[" + host + "]:" + port
	}
	return host + ":" + port
}
