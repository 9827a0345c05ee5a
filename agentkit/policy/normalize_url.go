package policy

import (
	"fmt"
	"net/netip"
	"strings"

	whatwg "github.com/nlnwa/whatwg-url/url"
)

// URLParts is a URL as the browser reads it (the WHATWG URL Standard, as Chromium implements it),
// reduced to what rules match on. It is the one normaliser of the three layers: the planner-side
// Decide, the route gate and the proxy all judge a URL through ParseURL (DecideRequest calls it).
type URLParts struct {
	// Scheme is lower case, without ":".
	Scheme string
	// Host is the host the browser will connect to, normalised as NormalizeHost does for policy
	// hosts: WHATWG host parsing (IDNA with the browser's profile, the IPv4 forms: hex, octal, short
	// and whole-number), then lower case, one trailing dot dropped, IPv6 canonical without brackets
	// and IPv4-mapped IPv6 collapsed to IPv4. "" for URLs without a host (about:, data:, blob:).
	Host string
	// Port is the explicit port ("" for the scheme's default, which WHATWG drops).
	Port string
	// Path is NormalizePath of the browser's path: the route a lenient backend takes.
	Path string
	// RawQuery is the query without "?", as the browser sends it.
	RawQuery string
	// Opaque is the rest of a URL with an opaque path ("blank" for about:blank).
	Opaque string
}

// ParseURL parses an absolute URL as the browser does (backslashes in special URLs are slashes; tabs
// and newlines are removed; "http:host" and "http:\\host" have a host; percent-encoded hosts are
// decoded) and normalises host and path. Errors wrap ErrInvalidHost, ErrInvalidPath or ErrInvalidURL.
func ParseURL(raw string) (URLParts, error) {
	u, err := whatwg.Parse(raw)
	if err != nil {
		return URLParts{}, fmt.Errorf("%w: %q: %s", ErrInvalidURL, RedactUserinfo(raw), RedactUserinfo(err.Error()))
	}
	return partsOf(u, RedactUserinfo(raw))
}

// ResolveURL resolves ref against base as the browser does (a backslash-relative "\/\/host" is
// another host; "https:foo" on an https page is a path) and returns the absolute URL. An empty base
// parses ref alone.
func ResolveURL(base, ref string) (string, error) {
	u, err := whatwg.ParseRef(base, ref)
	if err != nil {
		return "", fmt.Errorf("%w: %q against %q: %s", ErrInvalidURL, RedactUserinfo(ref), RedactUserinfo(base), RedactUserinfo(err.Error()))
	}
	return u.Href(false), nil
}

// partsOf reduces u; raw, the URL as written with its user information redacted, names it in errors.
func partsOf(u *whatwg.Url, raw string) (URLParts, error) {
	p := URLParts{Scheme: u.Scheme(), RawQuery: u.Query()}
	if u.OpaquePath() {
		p.Opaque = u.Pathname()
		return p, nil
	}
	if u.Hostname() != "" {
		h, err := canonicalHost(u.Hostname())
		if err != nil {
			return URLParts{}, fmt.Errorf("%w: %q: %w", ErrInvalidHost, raw, err)
		}
		p.Host = h
		if u.Port() != "" {
			port, err := normalizePort(raw, u.Port())
			if err != nil {
				return URLParts{}, err
			}
			p.Port = port
		}
	}
	path, err := NormalizePath(u.Pathname())
	if err != nil {
		return URLParts{}, err
	}
	p.Path = path
	return p, nil
}

// canonicalHost turns a host the WHATWG parser produced (already ASCII, IPv4 already dotted, IPv6 in
// brackets) into the form host rules are matched on.
func canonicalHost(h string) (string, error) {
	if strings.HasPrefix(h, "[") && strings.HasSuffix(h, "]") {
		ip, err := netip.ParseAddr(h[1 : len(h)-1])
		if err != nil {
			return "", err
		}
		return ip.Unmap().String(), nil
	}
	h = strings.ToLower(strings.TrimSuffix(h, "."))
	if h == "" || strings.HasPrefix(h, ".") || strings.HasSuffix(h, ".") || strings.Contains(h, "..") {
		return "", fmt.Errorf("empty label in %q", h)
	}
	if ip, err := netip.ParseAddr(h); err == nil {
		return ip.Unmap().String(), nil
	}
	return h, nil
}
