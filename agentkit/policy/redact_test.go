package policy

import (
	"strings"
	"testing"
)

// TestHostWithUserinfoIsRefusedWithoutThePassword: a policy host written as a URL with a password
// is refused as "a host, not a URL", and no message repeats the password (issue 28.7).
func TestHostWithUserinfoIsRefusedWithoutThePassword(t *testing.T) {
	const secret = "s3cret"
	for _, host := range []string{
		"http://user:s3cret@portale.interno.test",
		"user:s3cret@portale.interno.test",
		"https://user:s3cret@portale.interno.test:8443/pratiche",
		"http:\\\\user:s3cret@portale.interno.test",
		"u@x:s3cret@portale.interno.test",
	} {
		for _, yml := range []string{
			"version: 1\nnavigation:\n  allow:\n    - {host: \"" + strings.ReplaceAll(host, `\`, `\\`) + "\", paths: [\"^/\"]}\n",
			"version: 1\nnavigation:\n  allow: [{host: a.test, paths: [\"^/\"]}]\n  static_assets: [\"" + strings.ReplaceAll(host, `\`, `\\`) + "\"]\n",
			"version: 1\nnavigation:\n  allow: [{host: a.test, paths: [\"^/\"]}]\nactions:\n  writes:\n    - {method: POST, host: \"" + strings.ReplaceAll(host, `\`, `\\`) + "\", path: \"^/\"}\n",
		} {
			_, err := Parse("p.yml", []byte(yml))
			if err == nil {
				t.Errorf("host %q accepted", host)
				continue
			}
			if msg := err.Error(); strings.Contains(msg, secret) || !strings.Contains(msg, "a host (or host:port), not a URL") {
				t.Errorf("host %q: error %q, want one saying a host, not a URL, without the password", host, msg)
			}
		}
		if _, _, err := NormalizeHost(host); err == nil || strings.Contains(err.Error(), secret) {
			t.Errorf("NormalizeHost(%q) = %v, want an error without the password", host, err)
		}
	}
}

// TestDecisionsNeverRepeatAPassword: the reasons of request decisions quoting a URL redact its user
// information.
func TestDecisionsNeverRepeatAPassword(t *testing.T) {
	p := mustParse(t, "version: 1\nnavigation:\n  allow: [{host: portale.interno.test, paths: [\"^/\"]}]\n")
	for _, r := range []Request{
		{Method: "GET", URL: "http://user:s3cret@bad%zzhost/"},
		{Method: "GET", URL: "ftp://user:s3cret@portale.interno.test/"},
		{Method: "GET", URL: "http://user:s3cret@[::1/"},
		{Method: "GET", URL: "about:user:s3cret@x"},
	} {
		d := p.DecideRequest(r)
		if d.Allow || strings.Contains(d.Reason, "s3cret") {
			t.Errorf("DecideRequest(%q) = %+v, want a denial without the password", r.URL, d)
		}
	}
	if d := p.DecideHost("user:s3cret@portale.interno.test"); d.Allow || strings.Contains(d.Reason, "s3cret") {
		t.Errorf("DecideHost = %+v, want a denial without the password", d)
	}
	if _, err := ResolveURL("http://user:s3cret@[bad/", "x"); err == nil || strings.Contains(err.Error(), "s3cret") {
		t.Errorf("ResolveURL error %v, want one without the password", err)
	}
}

func TestRedactUserinfo(t *testing.T) {
	for in, want := range map[string]string{
		`URL "http://user:s3cret@portale.interno.test/x" is bad`: `URL "http://REDACTED@portale.interno.test/x" is bad`,
		"https://a@b@c.test/?q=d@e":                              "https://REDACTED@c.test/?q=d@e",
		`http:\\u:p@h.test`:                                      `http:\\REDACTED@h.test`,
		"no url here":                                            "no url here",
		"http://portale.interno.test/a@b":                        "http://portale.interno.test/a@b",
	} {
		if got := RedactUserinfo(in); got != want {
			t.Errorf("RedactUserinfo(%q) = %q, want %q", in, got, want)
		}
	}
}
