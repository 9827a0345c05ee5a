package main

import (
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestProxyCommandNeverRepeatsAPassword: a policy whose allowlist entry is a URL with a password
// is refused as "a host, not a URL", and the message holds no password (issue 28.7).
func TestProxyCommandNeverRepeatsAPassword(t *testing.T) {
	ref, err := os.ReadFile(referencePolicy)
	if err != nil {
		t.Fatal(err)
	}
	yml := strings.Replace(string(ref), "- host: portale.interno.test", `- host: "http://user:s3cret@portale.interno.test"`, 1)
	if yml == string(ref) {
		t.Fatal("the reference policy has no `- host: portale.interno.test` line to replace")
	}
	pol := writeFile(t, filepath.Join(t.TempDir(), "userinfo.yml"), yml)
	for _, args := range [][]string{
		{"proxy", "--policy", pol},
		{"proxy", "--policy", referencePolicy, "--map", "http://user:s3cret@portale.interno.test=127.0.0.1:1"},
	} {
		var out, errOut bytes.Buffer
		if code := run(args, &out, &errOut); code != exitUsage {
			t.Errorf("trapline %v: exit %d, want %d", args, code, exitUsage)
		}
		if msg := errOut.String(); strings.Contains(msg, "s3cret") || !strings.Contains(msg, "not a URL") {
			t.Errorf("trapline %v stderr %q: want a host, not a URL, and no password", args, msg)
		}
	}
}

// TestProxyCommandRefusesAnOpenListener: --listen on every interface (or any address but loopback)
// is refused unless --allow-non-loopback says so; with it, the first line is a URL a client on this
// machine can dial, not "[::]:PORT" (issue 28.8).
func TestProxyCommandRefusesAnOpenListener(t *testing.T) {
	for _, listen := range []string{"0.0.0.0:0", ":0", "[::]:0", "192.0.2.1:0"} {
		var out, errOut bytes.Buffer
		args := []string{"proxy", "--no-rules", "--listen", listen}
		if code := run(args, &out, &errOut); code != exitUsage {
			t.Errorf("trapline %v: exit %d, want %d (stdout %q)", args, code, exitUsage, out.String())
		}
		if !strings.Contains(errOut.String(), "--allow-non-loopback") || out.Len() != 0 {
			t.Errorf("trapline %v: stderr %q, stdout %q: want a refusal naming --allow-non-loopback and nothing printed", args, errOut.String(), out.String())
		}
	}
	portal := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { _, _ = io.WriteString(w, "portale") }))
	defer portal.Close()
	// startProxyCommand checks the first line is http://127.0.0.1:PORT and builds its client on it.
	pc := startProxyCommand(t, map[string]string{"portale.interno.test": portal.Listener.Addr().String()}, "--listen", "0.0.0.0:0", "--allow-non-loopback")
	resp, err := pc.client.Get("http://portale.interno.test/pratiche")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	_ = resp.Body.Close()
	if resp.StatusCode != http.StatusOK || string(body) != "portale" {
		t.Errorf("through the printed URL: %d %q, want 200 portale", resp.StatusCode, body)
	}
	if ds := pc.stop(t); len(ds) != 1 || !ds[0].Allowed() {
		t.Errorf("decisions %+v, want one allow", ds)
	}
}
