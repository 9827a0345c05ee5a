package browser

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/trapline/trapline/proxy"
)

// startRunServer starts `playwright run-server` (the driver's own, on loopback, random port) and
// returns its ws:// endpoint; the test's cleanup stops it. unsafe lets clients pass launch arguments
// and the executable (the server launches the local Debian Chromium only then).
func startRunServer(t *testing.T, unsafe bool, env ...string) string {
	t.Helper()
	needChromium(t)
	// Chromium is there, so make setup ran: a missing Node.js or driver is a broken set-up, not a skip.
	if err := useSystemNode(); err != nil {
		t.Fatalf("Node.js for the Playwright driver: %v", err)
	}
	pkg, err := PlaywrightCoreDir()
	if err != nil {
		t.Fatalf("the Playwright driver (make setup installs it): %v", err)
	}
	node := os.Getenv("PLAYWRIGHT_NODEJS_PATH")
	if node == "" {
		node = "node"
	}
	args := []string{filepath.Join(pkg, "cli.js"), "run-server", "--port", "0", "--host", "127.0.0.1"}
	if unsafe {
		args = append(args, "--unsafe")
	}
	cmd := exec.Command(node, args...)
	cmd.Env = append(os.Environ(), env...)
	cmd.Stderr = os.Stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatalf("start run-server: %v", err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	got := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			if ep, ok := strings.CutPrefix(sc.Text(), "Listening on "); ok {
				got <- strings.TrimSpace(ep)
				break
			}
		}
		for sc.Scan() { // keep draining so the server never blocks on its stdout
		}
	}()
	select {
	case ep := <-got:
		return ep
	case <-time.After(2 * time.Minute): // a bound on the server's start, not a pause
		t.Fatal("run-server printed no endpoint within 2 minutes")
		return ""
	}
}

// TestRemoteBrowserStaysBehindTheWorldProxy: a browser from a `playwright run-server` endpoint, got
// through the Allocator that RemoteEnv selects, reaches the portal only through the world's proxy
// (portale.interno.test resolves nowhere else), and a page's requests to anything outside the world
// (a server on this machine's loopback, the easiest thing to reach around a proxy) never arrive: the
// session's own gate or the proxy refuses them, and nothing goes around both.
func TestRemoteBrowserStaysBehindTheWorldProxy(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: starts a browser server")
	}
	ep := startRunServer(t, true)
	var outside atomic.Int64
	out := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { outside.Add(1) }))
	t.Cleanup(out.Close)
	var portal atomic.Int64
	pol, px := portalProxy(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		portal.Add(1)
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprintf(w, `<!doctype html><title>Pratiche</title><h1>Pratiche</h1><img src="%s/pixel.png">`, out.URL)
	}))

	alloc, err := AllocatorFromEnv(Options{Environ: append(os.Environ(), RemoteEnv+"="+ep)})
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := alloc.(RemoteAllocator); !ok {
		t.Fatalf("%s=%s gave %s, want the remote allocator", RemoteEnv, ep, alloc)
	}
	b, err := alloc.Allocate()
	if err != nil {
		t.Fatalf("%s: %v", alloc, err)
	}
	t.Cleanup(func() { _ = b.Close() })
	sess, _ := newSession(t, b, px, pol, t.TempDir())
	t.Cleanup(func() { _ = sess.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if r := sess.Goto(ctx, "http://portale.interno.test/pratiche"); r.Err != nil {
		t.Fatalf("goto the portal through the world's proxy: %v", r.Err)
	}
	if portal.Load() == 0 {
		t.Fatal("the portal was never reached")
	}
	// A navigation and a fetch straight to the outside server: both must be refused by the proxy.
	_ = sess.Goto(ctx, out.URL+"/nav")
	_, _ = sess.Page().Evaluate(`u => fetch(u, {mode: "no-cors"}).then(() => "sent", e => String(e))`, out.URL+"/fetch")
	if err := sess.Close(); err != nil {
		t.Fatal(err)
	}
	if n := outside.Load(); n != 0 {
		t.Fatalf("the remote browser reached a server outside the world %d time(s)", n)
	}
	// The portal came through the world's proxy (the only place its name resolves).
	through := false
	for _, d := range px.Decisions() {
		through = through || d.Host == "portale.interno.test" && d.Choice == proxy.Allow
	}
	if !through {
		t.Errorf("the world's proxy logged no request to the portal: %+v", px.Decisions())
	}
}

// TestRemoteBrowserWithoutTheSwitchesIsRefused: a server that drops the launch arguments (run-server
// without --unsafe launches its own browser without proxy.ChromiumArgs, so WebRTC could send UDP
// around the proxy) is refused with ErrRemoteUnfenced, never used. The server's "own" browser is the
// Debian Chromium, linked where Playwright looks for its headless shell (a browsers folder of the
// test's own, PLAYWRIGHT_BROWSERS_PATH for the server only).
func TestRemoteBrowserWithoutTheSwitchesIsRefused(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: starts a browser server")
	}
	needChromium(t)
	pkg, err := PlaywrightCoreDir()
	if err != nil {
		t.Fatalf("the Playwright driver (make setup installs it): %v", err)
	}
	b, err := os.ReadFile(filepath.Join(pkg, "browsers.json"))
	if err != nil {
		t.Fatal(err)
	}
	var manifest struct {
		Browsers []struct{ Name, Revision string }
	}
	if err := json.Unmarshal(b, &manifest); err != nil {
		t.Fatal(err)
	}
	rev := ""
	for _, br := range manifest.Browsers {
		if br.Name == "chromium-headless-shell" {
			rev = br.Revision
		}
	}
	if rev == "" {
		t.Fatalf("%s names no chromium-headless-shell revision", filepath.Join(pkg, "browsers.json"))
	}
	browsers := t.TempDir()
	shell := filepath.Join(browsers, "chromium_headless_shell-"+rev, "chrome-headless-shell-linux64", "chrome-headless-shell")
	if err := os.MkdirAll(filepath.Dir(shell), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(DefaultChromium, shell); err != nil {
		t.Fatal(err)
	}
	ep := startRunServer(t, false, "PLAYWRIGHT_BROWSERS_PATH="+browsers)
	br, err := Connect(RemoteOptions{Endpoint: ep, TimeoutMillis: 60000, Environ: os.Environ()})
	if err == nil {
		_ = br.Close()
		t.Fatal("a browser without the fence's switches was accepted")
	}
	if !errors.Is(err, ErrRemoteUnfenced) || !strings.Contains(err.Error(), "--webrtc-ip-handling-policy=disable_non_proxied_udp") {
		t.Fatalf("refused with %v; want ErrRemoteUnfenced naming the WebRTC switch", err)
	}
	t.Logf("refused: %v", err)
}

func TestMissingSwitches(t *testing.T) {
	want := append(proxy.ChromiumArgs(), "--proxy-server=http://127.0.0.1:4000")
	if err := missingSwitches(append(proxy.ChromiumArgs(), "--proxy-server=127.0.0.1:4000", "--headless"), want); err != nil {
		t.Errorf("all switches present: %v", err)
	}
	err := missingSwitches([]string{"--proxy-server=127.0.0.1:4000", "--headless"}, want)
	if !errors.Is(err, ErrRemoteUnfenced) || !strings.Contains(err.Error(), "--webrtc-ip-handling-policy=disable_non_proxied_udp") {
		t.Errorf("no WebRTC switch: %v, want ErrRemoteUnfenced naming it", err)
	}
	if err := missingSwitches(proxy.ChromiumArgs(), want); !errors.Is(err, ErrRemoteUnfenced) {
		t.Errorf("no sink proxy: %v", err)
	}
}

func TestAllocatorFromEnv(t *testing.T) {
	t.Setenv(RemoteEnv, "ws://127.0.0.1:9/process") // the process's own: never read
	if a, err := AllocatorFromEnv(Options{Environ: []string{}}); err != nil || a.String() != "local chromium" {
		t.Errorf("unset: %v, %v", a, err)
	}
	if a, err := AllocatorFromEnv(Options{}); err == nil || !strings.Contains(err.Error(), "Options.Environ is nil") {
		t.Errorf("nil Environ: %v, %v; want an error naming Options.Environ", a, err)
	}
	for _, bad := range []string{"http://127.0.0.1:3000/", "127.0.0.1:3000", "ws://"} {
		if a, err := AllocatorFromEnv(Options{Environ: []string{RemoteEnv + "=" + bad}}); err == nil || !strings.Contains(err.Error(), RemoteEnv) {
			t.Errorf("%s=%q: %v, %v; want an error naming %s", RemoteEnv, bad, a, err, RemoteEnv)
		}
	}
	a, err := AllocatorFromEnv(Options{Environ: []string{RemoteEnv + "=wss://user:secret@grid.example.test/playwright?token=secret"}})
	if err != nil {
		t.Fatal(err)
	}
	if s := a.String(); strings.Contains(s, "secret") || !strings.Contains(s, "grid.example.test/playwright") {
		t.Errorf("String() = %q: want the endpoint without its credentials", s)
	}
}
