package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"maps"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/trapline/trapline/proxy"
)

const referencePolicy = "../../policies/reference.yml"

// TestProxyCommand runs trapline proxy in-process on 127.0.0.1:0 in front of a fake portal and
// checks one allowed and one denied request, the decision log, and a clean stop.
func TestProxyCommand(t *testing.T) {
	var (
		mu   sync.Mutex
		hits []string
	)
	portal := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		hits = append(hits, r.Host+r.URL.Path)
		mu.Unlock()
		_, _ = io.WriteString(w, "portale")
	}))
	defer portal.Close()
	canary := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		t.Errorf("the canary was reached: %s %s", r.Method, r.URL)
	}))
	defer canary.Close()
	pc := startProxyCommand(t, map[string]string{
		"portale.interno.test": portal.Listener.Addr().String(),
		"evil.example.test":    canary.Listener.Addr().String(),
	})
	client := pc.client

	cases := []struct {
		url  string
		want int
	}{
		{"http://portale.interno.test/pratiche", http.StatusOK},
		{"http://evil.example.test/raccolta", http.StatusForbidden},
	}
	for _, c := range cases {
		req, _ := http.NewRequest("GET", c.url, nil)
		req.Header.Set("Accept", "text/html")
		resp, err := client.Do(req)
		if err != nil {
			t.Fatalf("GET %s: %v", c.url, err)
		}
		_ = resp.Body.Close()
		if resp.StatusCode != c.want {
			t.Errorf("GET %s through the proxy: %d, want %d", c.url, resp.StatusCode, c.want)
		}
	}
	mu.Lock()
	if len(hits) != 1 || hits[0] != "portale.interno.test/pratiche" {
		t.Errorf("portal saw %v, want one GET portale.interno.test/pratiche", hits)
	}
	mu.Unlock()

	var got []string
	for _, d := range pc.stop(t) {
		got = append(got, d.Host+" "+d.Choice+" "+string(d.Rule))
	}
	want := []string{"portale.interno.test allow allowed", "evil.example.test deny host_not_allowed"}
	if strings.Join(got, "; ") != strings.Join(want, "; ") {
		t.Errorf("decision log = %v, want %v", got, want)
	}
}

// proxyCommand is a trapline proxy run in-process by a test, with the reference policy.
type proxyCommand struct {
	client  *http.Client
	logPath string
	cancel  context.CancelFunc
	done    chan error
}

// startProxyCommand runs trapline proxy on 127.0.0.1:0 with each host of hosts mapped to its
// address, and returns once the proxy has printed its URL, with a client that goes through it.
// extra arguments come last (a later --listen wins).
func startProxyCommand(t *testing.T, hosts map[string]string, extra ...string) *proxyCommand {
	t.Helper()
	pc := &proxyCommand{logPath: filepath.Join(t.TempDir(), "decisions.jsonl"), done: make(chan error, 1)}
	ctx, cancel := context.WithCancel(t.Context())
	pc.cancel = cancel
	t.Cleanup(cancel)
	args := append([]string{"--policy", referencePolicy, "--listen", "127.0.0.1:0", "--log", pc.logPath}, extra...)
	for _, host := range slices.Sorted(maps.Keys(hosts)) {
		args = append(args, "--map", host+"="+hosts[host])
	}
	args = append(args, extra...)
	outR, outW := io.Pipe()
	go func() {
		pc.done <- runProxy(ctx, args, outW)
		_ = outW.Close()
	}()
	lines := bufio.NewScanner(outR)
	if !lines.Scan() {
		t.Fatalf("no output from trapline proxy: %v", <-pc.done)
	}
	go func() { _, _ = io.Copy(io.Discard, outR) }() // drain the rest
	proxyURL, err := url.Parse(strings.TrimSpace(lines.Text()))
	if err != nil || proxyURL.Scheme != "http" || !strings.HasPrefix(proxyURL.Host, "127.0.0.1:") {
		t.Fatalf("first line %q is not the proxy URL", lines.Text())
	}
	tr := &http.Transport{Proxy: http.ProxyURL(proxyURL)}
	t.Cleanup(tr.CloseIdleConnections)
	pc.client = &http.Client{Transport: tr, Timeout: 10 * time.Second}
	return pc
}

// stop ends the proxy, fails the test unless it stops cleanly within 10 s, and returns the
// decisions of its log, in order.
func (pc *proxyCommand) stop(t *testing.T) []proxy.Decision {
	t.Helper()
	pc.cancel()
	select {
	case err := <-pc.done:
		if err != nil {
			t.Fatalf("trapline proxy ended with %v, want nil after the stop signal", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("trapline proxy did not stop after the stop signal")
	}
	data, err := os.ReadFile(pc.logPath)
	if err != nil {
		t.Fatal(err)
	}
	var out []proxy.Decision
	for _, line := range bytes.Split(bytes.TrimSpace(data), []byte("\n")) {
		var d proxy.Decision
		if err := json.Unmarshal(line, &d); err != nil {
			t.Fatalf("log line %q: %v", line, err)
		}
		out = append(out, d)
	}
	return out
}

func TestProxyCommandBadInput(t *testing.T) {
	dir := t.TempDir()
	bad := writeFile(t, filepath.Join(dir, "broken-policy.yml"), "version: 1\nnavigation:\n  allow: []\n  bogus: 1\n")
	cases := []struct {
		name     string
		args     []string
		contains string
	}{
		{"no policy", []string{"proxy"}, "--policy is required"},
		{"unknown flag", []string{"proxy", "--policy", referencePolicy, "--frobnicate"}, "frobnicate"},
		{"stray argument", []string{"proxy", "--policy", referencePolicy, "extra"}, "extra"},
		{"missing policy", []string{"proxy", "--policy", filepath.Join(dir, "missing.yml")}, "missing.yml"},
		{"invalid policy", []string{"proxy", "--policy", bad}, "broken-policy.yml:4"},
		{"map without =", []string{"proxy", "--policy", referencePolicy, "--map", "portale.interno.test"}, "host=IP:PORT"},
		{"map to a name", []string{"proxy", "--policy", referencePolicy, "--map", "portale.interno.test=localhost:80"}, "literal IP:port"},
		{"bad listen", []string{"proxy", "--policy", referencePolicy, "--listen", "nowhere"}, "--listen"},
		{"log in a missing folder", []string{"proxy", "--policy", referencePolicy, "--log", filepath.Join(dir, "no", "such", "log")}, "decision log"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var out, errOut bytes.Buffer
			if code := run(c.args, &out, &errOut); code != exitUsage {
				t.Errorf("trapline %v exit %d, want %d (stderr %s)", c.args, code, exitUsage, errOut.String())
			}
			if !strings.Contains(errOut.String(), c.contains) {
				t.Errorf("trapline %v stderr lacks %q:\n%s", c.args, c.contains, errOut.String())
			}
			if out.Len() != 0 {
				t.Errorf("trapline %v printed %q before failing", c.args, out.String())
			}
		})
	}
}
