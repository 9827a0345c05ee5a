package policy_test

import (
	"bufio"
	"crypto/tls"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/trapline/trapline/agentkit/policy"
	"github.com/trapline/trapline/internal/urlcorpus"
	"github.com/trapline/trapline/proxy"
)

// TestURLCorpusOverHTTPS sends every path spelling of the corpus as https://portale.interno.test...
// through the proxy the way a browser does, inside a CONNECT tunnel with TLS to the proxy's CA, and
// checks the proxy gives the line's rule: the same verdicts as over plain HTTP, 0 escapes. Before the
// interception (issue 28 item 2) every one of them was an allowed tunnel whose content no rule read.
func TestURLCorpusOverHTTPS(t *testing.T) {
	ref, err := policy.Load("../../policies/reference.yml")
	if err != nil {
		t.Fatal(err)
	}
	upstream := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.WriteString(w, "portale")
	}))
	defer upstream.Close()
	px, err := proxy.Start(proxy.Config{Rules: ref, Hosts: map[string]string{"portale.interno.test": upstream.Listener.Addr().String()}})
	if err != nil {
		t.Fatal(err)
	}
	defer px.Close()
	lines, err := urlcorpus.Load(filepath.Join("testdata", "corpus"), "paths.txt", "https://portale.interno.test")
	if err != nil {
		t.Fatal(err)
	}
	sent, escapes := 0, 0
	for _, c := range lines {
		abs, err := policy.ResolveURL(corpusPage, c.Ref)
		if err != nil || !strings.HasPrefix(abs, "https:") {
			continue // the browser sends nothing, or not over HTTPS: TestURLCorpus covers it
		}
		sent++
		got := proxyRuleHTTPS(t, px, abs)
		if got != c.Rule {
			if got == policy.RuleAllowed {
				escapes++
			}
			t.Errorf("%s:%d %q: the proxy over HTTPS gives %s, want %s %s", c.File, c.Line, abs, got, c.Rule, c.Note)
		}
	}
	if sent < 60 {
		t.Fatalf("only %d spellings went over HTTPS; the corpus has more", sent)
	}
	t.Logf("corpus over HTTPS: %d of %d path spellings through a CONNECT tunnel; %d escapes", sent, len(lines), escapes)
}

// proxyRuleHTTPS opens CONNECT host:443 to px, speaks TLS trusting only px's CA, sends "GET path"
// (fragment cut, userinfo dropped, as the browser does) and returns the rule of the answer.
func proxyRuleHTTPS(t *testing.T, px *proxy.Proxy, abs string) policy.Rule {
	t.Helper()
	if i := strings.IndexByte(abs, '#'); i >= 0 {
		abs = abs[:i]
	}
	rest := strings.TrimPrefix(abs, "https://")
	host, tail := rest, "/"
	if i := strings.IndexAny(rest, "/?"); i >= 0 {
		host, tail = rest[:i], rest[i:]
	}
	if tail[0] == '?' {
		tail = "/" + tail
	}
	if at := strings.LastIndexByte(host, '@'); at >= 0 {
		host = host[at+1:]
	}
	conn, err := net.DialTimeout("tcp", px.Addr(), 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	_ = conn.SetDeadline(time.Now().Add(10 * time.Second))
	fmt.Fprintf(conn, "CONNECT %s:443 HTTP/1.1\r\nHost: %s:443\r\n\r\n", host, host)
	br := bufio.NewReader(conn)
	resp, err := http.ReadResponse(br, &http.Request{Method: http.MethodConnect})
	if err != nil {
		t.Fatalf("CONNECT %s: %v", host, err)
	}
	if resp.StatusCode != http.StatusOK {
		return policy.Rule(resp.Header.Get(proxy.RuleHeader))
	}
	name := host
	if u, err := url.Parse("https://" + host); err == nil {
		name = u.Hostname()
	}
	tc := tls.Client(bufferedConn{Conn: conn, r: br}, &tls.Config{RootCAs: px.CA().Pool(), ServerName: name})
	if _, err := fmt.Fprintf(tc, "GET %s HTTP/1.1\r\nHost: %s\r\nAccept: text/html\r\nConnection: close\r\n\r\n", tail, host); err != nil {
		t.Fatalf("GET %s in the tunnel: %v", abs, err)
	}
	resp, err = http.ReadResponse(bufio.NewReader(tc), nil)
	if err != nil {
		t.Fatalf("answer to GET %s in the tunnel: %v", abs, err)
	}
	_ = resp.Body.Close()
	switch {
	case resp.StatusCode == http.StatusOK:
		return policy.RuleAllowed
	case resp.Header.Get(proxy.RuleHeader) != "":
		return policy.Rule(resp.Header.Get(proxy.RuleHeader))
	case resp.StatusCode == http.StatusBadRequest:
		return policy.RuleInvalidURL // net/http refused the request line before the handlers
	}
	return policy.Rule(fmt.Sprintf("http_%d", resp.StatusCode))
}

// bufferedConn reads through a bufio.Reader that may hold bytes already read off the connection.
type bufferedConn struct {
	net.Conn
	r *bufio.Reader
}

func (c bufferedConn) Read(p []byte) (int, error) { return c.r.Read(p) }
