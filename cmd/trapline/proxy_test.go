package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
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
	logPath := filepath.Join(t.TempDir(), "decisions.jsonl")

	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	outR, outW := io.Pipe()
	done := make(chan error, 1)
	go func() {
		done <- runProxy(ctx, []string{"--policy", referencePolicy, "--listen", "127.0.0.1:0",
			"--map", "portale.interno.test=" + portal.Listener.Addr().String(),
			"--map", "evil.example.test=" + canary.Listener.Addr().String(),
			"--log", logPath}, outW)
		_ = outW.Close()
	}()
	lines := bufio.NewScanner(outR)
	if !lines.Scan() {
		t.Fatalf("no output from trapline proxy: %v", <-done)
	}
	go func() { _, _ = io.Copy(io.Discard, outR) }() // drain the rest
	proxyURL, err := url.Parse(strings.TrimSpace(lines.Text()))
	if err != nil || proxyURL.Scheme != "http" || !strings.HasPrefix(proxyURL.Host, "127.0.0.1:") {
		t.Fatalf("first line %q is not the proxy URL", lines.Text())
	}
	tr := &http.Transport{Proxy: http.ProxyURL(proxyURL)}
	defer tr.CloseIdleConnections()
	client := &http.Client{Transport: tr, Timeout: 10 * time.Second}

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

	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("trapline proxy ended with %v, want nil after the stop signal", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("trapline proxy did not stop after the stop signal")
	}
	data, err := os.ReadFile(logPath)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, line := range bytes.Split(bytes.TrimSpace(data), []byte("\n")) {
		var d proxy.Decision
		if err := json.Unmarshal(line, &d); err != nil {
			t.Fatalf("log line %q: %v", line, err)
		}
		got = append(got, d.Host+" "+d.Verdict+" "+string(d.Rule))
	}
	want := []string{"portale.interno.test allow allowed", "evil.example.test deny host_not_allowed"}
	if strings.Join(got, "; ") != strings.Join(want, "; ") {
		t.Errorf("decision log = %v, want %v", got, want)
	}
}

func TestProxyCommandBadInput(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "broken-policy.yml")
	if err := os.WriteFile(bad, []byte("version: 1\nnavigation:\n  allow: []\n  bogus: 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
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
