package proxy

import (
	"bufio"
	"errors"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/trapline/trapline/agentkit/policy"
)

// rawRequest writes a raw request (its lines joined with CRLF, ended by an empty line) to the
// proxy and reads the answer.
func rawRequest(t *testing.T, p *Proxy, lines ...string) *http.Response {
	t.Helper()
	conn, err := net.DialTimeout("tcp", p.Addr(), 5*time.Second)
	if err != nil {
		t.Fatalf("dial proxy: %v", err)
	}
	t.Cleanup(func() { _ = conn.Close() })
	_ = conn.SetDeadline(time.Now().Add(10 * time.Second))
	if _, err := io.WriteString(conn, strings.Join(lines, "\r\n")+"\r\n\r\n"); err != nil {
		t.Fatalf("write request: %v", err)
	}
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatalf("read response: %v", err)
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	_ = resp.Body.Close()
	return resp
}

// urlPanicRules panics with the URL it was asked about, user information included.
type urlPanicRules struct{}

func (urlPanicRules) DecideRequest(r policy.Request) policy.Decision { panic("cannot judge " + r.URL) }
func (urlPanicRules) DecideHost(h string) policy.Decision            { panic("cannot judge " + h) }

// TestDecisionLogNeverRepeatsAPassword: a request URL with user information leaves no password in
// the decision log, whoever wrote the reason (issue 28.7).
func TestDecisionLogNeverRepeatsAPassword(t *testing.T) {
	pol, err := policy.Load(referencePolicy)
	if err != nil {
		t.Fatal(err)
	}
	w := newWorld(t)
	for _, tc := range []struct {
		name   string
		rules  Rules
		target string
	}{
		{"reference policy, outside host", pol, "http://user:s3cret@evil.example.test/x"},
		{"reference policy, unseen channel", pol, "http://user:s3cret@portale.interno.test/pratiche/1/elimina"},
		{"panicking rules", urlPanicRules{}, "http://user:s3cret@portale.interno.test/pratiche"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var log syncBuffer
			p := startProxy(t, Config{Rules: tc.rules, Hosts: w.hosts, Log: &log})
			resp := rawRequest(t, p, "GET "+tc.target+" HTTP/1.1", "Host: x")
			if resp.StatusCode != http.StatusForbidden {
				t.Errorf("GET %s: %d, want 403", tc.target, resp.StatusCode)
			}
			if all := strings.Join(log.lines(), "\n"); strings.Contains(all, "s3cret") || all == "" {
				t.Errorf("decision log %q: want a line without the password", all)
			}
		})
	}
	_, err = Start(Config{Hosts: map[string]string{"http://user:s3cret@portale.interno.test": "127.0.0.1:1"}})
	if !errors.Is(err, ErrConfig) || strings.Contains(err.Error(), "s3cret") || !strings.Contains(err.Error(), "not a URL") {
		t.Errorf("Start with a URL as a host key: %v, want ErrConfig saying a host, not a URL, without the password", err)
	}
}
