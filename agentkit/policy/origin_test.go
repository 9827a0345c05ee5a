package policy

import (
	"strings"
	"testing"
)

// originPolicy allows three origins: a host with no scheme or port (http:80 and https:443), an https
// origin on a port of its own, and an https origin on its default port.
const originPolicy = `version: 1
navigation:
  allow:
    - {host: portale.interno.test, paths: ["^/"]}
    - {host: "https://api.interno.test:8443", paths: ["^/"]}
    - {host: "HTTPS://secure.interno.test", paths: ["^/"]}
`

// A navigation.allow entry is an origin, as the seeds' allowlist is: scheme, host and port. A host
// with no port allows the default port of each scheme only; a named scheme allows only that scheme.
func TestNavigationAllowIsByOrigin(t *testing.T) {
	p := mustParse(t, originPolicy)
	for _, c := range []struct {
		url  string
		want Rule
	}{
		{"http://portale.interno.test/", RuleAllowed},
		{"https://portale.interno.test/", RuleAllowed},
		{"http://portale.interno.test:80/", RuleAllowed},
		{"https://portale.interno.test:443/", RuleAllowed},
		{"http://portale.interno.test:8080/", RuleHostNotAllowed},  // any other port: another origin
		{"https://portale.interno.test:8443/", RuleHostNotAllowed}, // the same
		{"http://portale.interno.test:443/", RuleHostNotAllowed},   // http on https's port
		{"https://api.interno.test:8443/v1", RuleAllowed},
		{"http://api.interno.test:8443/v1", RuleHostNotAllowed}, // the entry names https
		{"https://api.interno.test/v1", RuleHostNotAllowed},     // and port 8443
		{"https://secure.interno.test/", RuleAllowed},
		{"http://secure.interno.test/", RuleHostNotAllowed},
		{"https://secure.interno.test:8443/", RuleHostNotAllowed},
	} {
		d := p.DecideRequest(Request{Method: "GET", URL: c.url, Navigation: true})
		if d.Rule != c.want {
			t.Errorf("%s: %s (%s), want %s", c.url, d.Rule, d.Reason, c.want)
		}
	}
	for _, c := range []struct {
		host string
		want Rule
	}{
		{"portale.interno.test:443", RuleAllowed},
		{"portale.interno.test:80", RuleAllowed},
		{"portale.interno.test:8443", RuleHostNotAllowed},
		{"api.interno.test:8443", RuleAllowed},
		{"api.interno.test:443", RuleHostNotAllowed},
		{"secure.interno.test:443", RuleAllowed},
		{"secure.interno.test:80", RuleHostNotAllowed}, // a tunnel to http's port: not the https origin
	} {
		if d := p.DecideHost(c.host); d.Rule != c.want {
			t.Errorf("DecideHost(%s): %s (%s), want %s", c.host, d.Rule, d.Reason, c.want)
		}
	}
}

// An entry's scheme survives a round trip through Marshal, and an entry naming another scheme, or a
// path, is refused naming the field.
func TestOriginEntriesLoadAndRoundTrip(t *testing.T) {
	p := mustParse(t, originPolicy)
	out, err := Marshal(p)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"https://api.interno.test:8443", "https://secure.interno.test", "host: portale.interno.test"} {
		if !strings.Contains(string(out), want) {
			t.Errorf("marshalled policy lacks %q:\n%s", want, out)
		}
	}
	if _, err := Parse("again.yml", out); err != nil {
		t.Fatalf("the marshalled policy does not load: %v", err)
	}
	for _, entry := range []string{"ftp://portale.interno.test", "https://portale.interno.test/pratiche", "ws://portale.interno.test"} {
		_, err := Parse("p.yml", []byte("version: 1\nnavigation:\n  allow:\n    - {host: \""+entry+"\", paths: [\"^/\"]}\n"))
		if err == nil || !strings.Contains(err.Error(), "navigation.allow[0].host: invalid host") {
			t.Errorf("entry %q: error %v, want an invalid host naming navigation.allow[0].host", entry, err)
		}
	}
}
