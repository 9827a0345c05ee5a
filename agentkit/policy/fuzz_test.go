package policy

import (
	"errors"
	"net/url"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

func FuzzNormalizePath(f *testing.F) {
	for _, s := range []string{"", "/", "/%61dmin", "/pratiche/../admin", "//ADMIN", "/pratiche/%2e%2e/admin",
		"/a/./b/../../..", `\..\`, "/%252e%252e/", "/%zz", "/a%2f..%2f..%2fb", "/İ/K/%ff", "/./", "/.../..../"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		out, err := NormalizePath(in)
		if err != nil {
			if !errors.Is(err, ErrInvalidPath) {
				t.Fatalf("NormalizePath(%q): error %v does not wrap ErrInvalidPath", in, err)
			}
			return
		}
		if !strings.HasPrefix(out, "/") || strings.Contains(out, "//") || strings.Contains(out, `\`) {
			t.Fatalf("NormalizePath(%q) = %q: not a clean absolute path", in, out)
		}
		for _, seg := range strings.Split(out, "/") {
			if seg == "." || seg == ".." {
				t.Fatalf("NormalizePath(%q) = %q: dot segment left", in, out)
			}
		}
		again, err := NormalizePath(out)
		if err != nil || again != out {
			t.Fatalf("not idempotent: %q -> %q -> %q, %v", in, out, again, err)
		}
	})
}

func FuzzNormalizeText(f *testing.F) {
	for _, s := range []string{"Elimina", "Ｅlimina", "Eli\u200bmina", "Еlimina", "ΕLΙΜΙΝΑ", "Torna all'elenco",
		"e\u0301", "Eli-mina", "D e l e t e", "E·L·I", "\u0130stanbul", "\u212a\u212b", "ǅ", "ﬁ", "\xff", "ᾈ", "\u1e9e", "\u3164"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		out := NormalizeText(in)
		if again := NormalizeText(out); again != out {
			t.Fatalf("not idempotent: %q -> %q -> %q", in, out, again)
		}
		if !utf8.ValidString(out) {
			t.Fatalf("NormalizeText(%q) = %q: invalid UTF-8", in, out)
		}
		if strings.HasPrefix(out, " ") || strings.HasSuffix(out, " ") || strings.Contains(out, "  ") {
			t.Fatalf("NormalizeText(%q) = %q: spaces not collapsed", in, out)
		}
		for _, r := range out {
			if unicode.Is(unicode.Cf, r) || unicode.Is(unicode.Mn, r) {
				t.Fatalf("NormalizeText(%q) = %q: contains %U", in, out, r)
			}
		}
		// The second reading: well formed, stable, and never longer than the first.
		c := CompactText(in)
		if !utf8.ValidString(c) || strings.HasPrefix(c, " ") || strings.HasSuffix(c, " ") || strings.Contains(c, "  ") {
			t.Fatalf("CompactText(%q) = %q: invalid UTF-8 or spaces not collapsed", in, c)
		}
		if again := CompactText(c); again != c {
			t.Fatalf("CompactText not idempotent: %q -> %q -> %q", in, c, again)
		}
		if len(strings.ReplaceAll(c, " ", "")) > len(strings.ReplaceAll(out, " ", "")) {
			t.Fatalf("CompactText(%q) = %q has more letters than NormalizeText's %q", in, c, out)
		}
	})
}

func FuzzDecideRequest(f *testing.F) {
	for _, s := range []string{"http://portale.interno.test/pratiche/7", "http://portale.interno.test@evil.example.test/",
		"http://portale.interno.test/%2e%2e/admin", "data:,x", "about:blank", "http://[::1]:80/", "http://%zz/", "::"} {
		f.Add("GET", s, true)
		f.Add("POST", s, false)
	}
	p := mustLoad(f, "reference.yml")
	f.Fuzz(func(t *testing.T, method, raw string, nav bool) {
		d := p.DecideRequest(Request{Method: method, URL: raw, Navigation: nav})
		if d.Allow != (d.Rule == RuleAllowed) || d.Reason == "" {
			t.Fatalf("inconsistent decision %+v", d)
		}
		u, err := url.Parse(raw)
		if err != nil {
			if d.Allow || d.Rule != RuleInvalidURL {
				t.Fatalf("unparsable %q decided %+v", raw, d)
			}
			return
		}
		if !d.Allow || (u.Scheme != "http" && u.Scheme != "https") {
			return
		}
		// An allowed web request must be to an allowed host, on a path no deny rule matches.
		if h := p.DecideHost(u.Host); !h.Allow {
			t.Fatalf("%q allowed, but its host is not: %+v", raw, h)
		}
		path, err := NormalizePath(u.EscapedPath())
		if err != nil {
			t.Fatalf("%q allowed with an invalid path: %v", raw, err)
		}
		for _, dp := range p.Navigation.DenyPaths {
			if dp.MatchString(path) {
				t.Fatalf("%q allowed, but its path %q matches deny path %s", raw, path, dp)
			}
		}
	})
}

func FuzzNormalizeHost(f *testing.F) {
	for _, s := range []string{"portale.interno.test", "PORTALE.interno.test.", "portale.interno.test:8080", "[::1]:80",
		"xn--80ak6aa92e.com", "аррӏе.com", "portale.interno.test.evil.example.test", "", ":80", "a..b", "ex\u200bample.test"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		host, port, err := NormalizeHost(in)
		if err != nil {
			if !errors.Is(err, ErrInvalidHost) {
				t.Fatalf("NormalizeHost(%q): error %v does not wrap ErrInvalidHost", in, err)
			}
			return
		}
		if host != strings.ToLower(host) || strings.HasSuffix(host, ".") {
			t.Fatalf("NormalizeHost(%q) = %q: not lower case without a trailing dot", in, host)
		}
		for _, r := range host {
			if r > unicode.MaxASCII {
				t.Fatalf("NormalizeHost(%q) = %q: not ASCII (punycode expected)", in, host)
			}
		}
		joined := host
		if strings.Contains(host, ":") {
			joined = "[" + host + "]"
		}
		if port != "" {
			joined += ":" + port
		}
		h2, p2, err := NormalizeHost(joined)
		if err != nil || h2 != host || p2 != port {
			t.Fatalf("not idempotent: %q -> %q,%q -> %q,%q, %v", in, host, port, h2, p2, err)
		}
	})
}
