package proxy

import (
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"

	"github.com/trapline/trapline/agentkit/policy"
)

// newRequest is http.NewRequest for a client to send; an error fails the test.
func newRequest(t testing.TB, method, url string, body io.Reader) *http.Request {
	t.Helper()
	req, err := http.NewRequest(method, url, body)
	if err != nil {
		t.Fatal(err)
	}
	return req
}

// send sends req with client and reads and closes the response body; an error sending or reading
// fails the test.
func send(t testing.TB, client *http.Client, req *http.Request) (*http.Response, []byte) {
	t.Helper()
	resp, err := client.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", req.Method, req.URL, err)
	}
	body, err := io.ReadAll(resp.Body)
	_ = resp.Body.Close()
	if err != nil {
		t.Fatalf("%s %s: read body: %v", req.Method, req.URL, err)
	}
	return resp, body
}

// fakeRules allows the hosts in allow (for any method but those in denyMethods) and records the
// requests it saw.
type fakeRules struct {
	allow       map[string]bool // normalised host names
	denyMethods map[string]bool

	mu   sync.Mutex
	seen []policy.Request
}

func newFakeRules(hosts ...string) *fakeRules {
	f := &fakeRules{allow: map[string]bool{}, denyMethods: map[string]bool{}}
	for _, h := range hosts {
		f.allow[h] = true
	}
	return f
}

func (f *fakeRules) DecideRequest(r policy.Request) policy.Decision {
	f.mu.Lock()
	f.seen = append(f.seen, r)
	f.mu.Unlock()
	u, err := url.Parse(r.URL)
	if err != nil {
		return policy.Decision{Rule: policy.RuleInvalidURL, Reason: err.Error()}
	}
	if f.denyMethods[r.Method] {
		return policy.Decision{Rule: policy.RuleWriteNotAllowed, Reason: r.Method + " " + u.Path + " is not a listed write"}
	}
	return f.DecideHost(u.Host)
}

func (f *fakeRules) DecideHost(host string) policy.Decision {
	h, _, err := policy.NormalizeHost(host)
	if err == nil && f.allow[h] {
		return policy.Decision{Allow: true, Rule: policy.RuleAllowed, Reason: "host " + h + " is allowed"}
	}
	return policy.Decision{Rule: policy.RuleHostNotAllowed, Reason: "host " + host + " is not allowed"}
}

func (f *fakeRules) requests() []policy.Request {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]policy.Request(nil), f.seen...)
}

// panicRules panics like a policy whose methods are not written yet.
type panicRules struct{}

func (panicRules) DecideRequest(policy.Request) policy.Decision { panic("not implemented") }
func (panicRules) DecideHost(string) policy.Decision            { panic("not implemented") }

// hit is one request an upstream received.
type hit struct {
	Method, Host, Path string
	Header             http.Header
}

// upstream is an httptest server that records what reaches it.
type upstream struct {
	*httptest.Server
	mu   sync.Mutex
	hits []hit
}

// newUpstream starts a plain (or TLS) upstream on 127.0.0.1 that answers "hello from <name>".
func newUpstream(t testing.TB, name string, tlsServer bool) *upstream {
	t.Helper()
	u := &upstream{}
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		u.mu.Lock()
		u.hits = append(u.hits, hit{Method: r.Method, Host: r.Host, Path: r.URL.Path, Header: r.Header.Clone()})
		u.mu.Unlock()
		_, _ = w.Write([]byte("hello from " + name))
	})
	if tlsServer {
		u.Server = httptest.NewTLSServer(h)
	} else {
		u.Server = httptest.NewServer(h)
	}
	t.Cleanup(u.Close)
	return u
}

func (u *upstream) addr() string { return u.Listener.Addr().String() }

func (u *upstream) received() []hit {
	u.mu.Lock()
	defer u.mu.Unlock()
	return append([]hit(nil), u.hits...)
}

// startProxy starts a proxy and registers its Close before checking the error.
func startProxy(t testing.TB, cfg Config) *Proxy {
	t.Helper()
	p, err := Start(cfg)
	if p != nil {
		t.Cleanup(func() {
			if err := p.Close(); err != nil {
				t.Errorf("close proxy: %v", err)
			}
		})
	}
	if err != nil {
		t.Fatalf("start proxy: %v", err)
	}
	return p
}

// proxiedClient is an http.Client that sends everything through p and never through the
// environment's proxy settings.
func proxiedClient(t testing.TB, p *Proxy) *http.Client {
	t.Helper()
	pu, err := url.Parse(p.URL())
	if err != nil {
		t.Fatalf("parse proxy URL: %v", err)
	}
	tr := &http.Transport{Proxy: http.ProxyURL(pu)}
	t.Cleanup(tr.CloseIdleConnections)
	return &http.Client{
		Transport:     tr,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
}

// syncBuffer is a bytes.Buffer safe for the proxy's writes and the test's reads.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) lines() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return strings.Split(strings.TrimSuffix(s.b.String(), "\n"), "\n")
}
