package policy

import (
	"fmt"
	"strings"
)

// allows reports whether the entry allows an origin: the request's scheme ("" when the caller only
// knows a host and port: a CONNECT tunnel, where any scheme the entry allows will do), normalised
// host and port ("" when none was given). An entry is matched by origin, as the seeds' allowlist is:
// its host exactly; its scheme when it names one (ws and wss are http's and https's); its port when
// it names one, else the default port of the scheme (80 for http, 443 for https). "portale:8443" is
// no longer allowed by an entry "portale", nor "http://portale" by an entry "https://portale".
func (h HostRule) allows(scheme, host, port string) bool {
	if h.Host != host {
		return false
	}
	scheme = webScheme(scheme)
	if h.Scheme != "" && scheme != "" && h.Scheme != scheme {
		return false
	}
	if h.Port != "" {
		return port == h.Port
	}
	if port == "" {
		return true // no port named: the scheme's default
	}
	switch {
	case scheme != "":
		return port == defaultPort(scheme)
	case h.Scheme != "":
		return port == defaultPort(h.Scheme)
	}
	return port == "80" || port == "443"
}

// webScheme maps a WebSocket scheme to the HTTP scheme of its origin.
func webScheme(s string) string {
	switch s = strings.ToLower(s); s {
	case "ws":
		return "http"
	case "wss":
		return "https"
	}
	return s
}

// splitScheme takes an explicit scheme off a navigation.allow host entry ("https://portale:8443"):
// http or https, nothing else; "" when the entry names none.
func splitScheme(entry string) (scheme, rest string, err error) {
	i := strings.Index(entry, "://")
	if i < 0 {
		return "", entry, nil
	}
	scheme = strings.ToLower(entry[:i])
	if scheme != "http" && scheme != "https" {
		return "", "", fmt.Errorf("%w: %q: an entry may name the scheme http or https only", ErrInvalidHost, redactHost(entry))
	}
	// The rest is a host (or host:port): NormalizeHost refuses a path, a query or user information
	// as a URL, never repeating the password.
	return scheme, entry[i+3:], nil
}

// originString is how an entry is written back: its scheme when it names one, host and port.
func (h HostRule) originString() string {
	if h.Scheme == "" {
		return hostPort(h.Host, h.Port)
	}
	return h.Scheme + "://" + hostPort(h.Host, h.Port)
}
