package policy_test

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/trapline/trapline/agentkit/policy"
	"github.com/trapline/trapline/internal/urlcorpus"
	"github.com/trapline/trapline/proxy"
)

// corpusPage is the page every corpus reference is resolved against.
const corpusPage = urlcorpus.Page

func corpus(t *testing.T) []urlcorpus.Line {
	paths, hosts, err := urlcorpus.All(filepath.Join("testdata", "corpus"))
	if err != nil {
		t.Fatal(err)
	}
	if len(paths) < 60 || len(hosts) < 60 {
		t.Fatalf("corpus has %d path and %d host spellings; issue 15 wants at least 60 of each", len(paths), len(hosts))
	}
	return append(paths, hosts...)
}

// TestURLCorpus runs every corpus line through the three layers with the reference policy: the
// planner-side Decide (a goto of the reference as given), the route gate's matcher (DecideRequest on
// the URL the browser resolves the reference to, as a navigation) and the egress proxy (a real
// request line to a running proxy; only for http: URLs the browser would send, the proxy seeing
// https only as a CONNECT). Every layer must give the line's rule: 0 escapes, 0 false blocks.
func TestURLCorpus(t *testing.T) {
	ref, err := policy.Load("../../policies/reference.yml")
	if err != nil {
		t.Fatal(err)
	}
	upstream := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.WriteString(w, "portale")
	}))
	defer upstream.Close()
	px, err := proxy.Start(proxy.Config{Rules: ref, Hosts: map[string]string{
		"portale.interno.test":      upstream.Listener.Addr().String(),
		"portale.interno.test:8080": upstream.Listener.Addr().String(),
	}})
	if err != nil {
		t.Fatal(err)
	}
	defer px.Close()

	escapes, falseBlocks, viaProxy := 0, 0, 0
	for _, c := range corpus(t) {
		where := fmt.Sprintf("%s:%d %q", c.File, c.Line, c.Ref)
		count := func(layer string, got policy.Rule) {
			if got == c.Rule {
				return
			}
			if got == policy.RuleAllowed {
				escapes++
			} else if c.Rule == policy.RuleAllowed {
				falseBlocks++
			}
			t.Errorf("%s: %s gives %s, want %s %s", where, layer, got, c.Rule, c.Note)
		}
		d := ref.Decide(policy.Input{Kind: policy.KindGoto, URL: c.Ref, Page: corpusPage})
		count("Decide", d.Rule)

		abs, err := policy.ResolveURL(corpusPage, c.Ref)
		if err != nil {
			// The browser cannot resolve it: no request leaves; the agent check must refuse it.
			if c.Rule != policy.RuleInvalidURL {
				t.Errorf("%s: the browser's parser rejects it (%v), want %s", where, err, c.Rule)
			}
			continue
		}
		g := ref.DecideRequest(policy.Request{Method: "GET", URL: abs, Navigation: true})
		count("route gate", g.Rule)

		if !strings.HasPrefix(abs, "http:") {
			continue
		}
		viaProxy++
		count("proxy", proxyRule(t, px.Addr(), abs))
	}
	t.Logf("corpus: %d lines, %d through the proxy; %d escapes, %d false blocks", len(corpus(t)), viaProxy, escapes, falseBlocks)
}

// proxyRule sends "GET abs" (fragment cut, as the browser does) to the proxy on a raw connection
// and returns the rule it answered with (allowed for a 200 from upstream).
func proxyRule(t *testing.T, addr, abs string) policy.Rule {
	t.Helper()
	if i := strings.IndexByte(abs, '#'); i >= 0 {
		abs = abs[:i]
	}
	conn, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	_ = conn.SetDeadline(time.Now().Add(10 * time.Second))
	// Chromium never puts userinfo in the request line (it becomes an Authorization header).
	rest := strings.TrimPrefix(abs, "http://")
	host, tail := rest, ""
	if i := strings.IndexAny(rest, "/?"); i >= 0 {
		host, tail = rest[:i], rest[i:]
	}
	if at := strings.LastIndexByte(host, '@'); at >= 0 {
		host = host[at+1:]
	}
	abs = "http://" + host + tail
	if _, err := fmt.Fprintf(conn, "GET %s HTTP/1.1\r\nHost: %s\r\nAccept: text/html\r\nConnection: close\r\n\r\n", abs, host); err != nil {
		t.Fatal(err)
	}
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatalf("proxy answer to GET %s: %v", abs, err)
	}
	_ = resp.Body.Close()
	switch {
	case resp.StatusCode == http.StatusOK:
		return policy.RuleAllowed
	case resp.Header.Get(proxy.RuleHeader) != "":
		return policy.Rule(resp.Header.Get(proxy.RuleHeader))
	case resp.StatusCode == http.StatusBadRequest:
		// net/http refuses a request line whose URL does not parse (an invalid escape) before the
		// proxy's handler runs: nothing is forwarded, which is the invalid_url verdict.
		return policy.RuleInvalidURL
	}
	return policy.Rule(fmt.Sprintf("http_%d", resp.StatusCode))
}
