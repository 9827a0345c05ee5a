package browser

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/trapline/trapline/proxy"
)

// TestLaunchCDP starts Chromium behind a deny-all proxy, reads its DevTools endpoint, and checks that
// Close kills the process and removes the profile.
func TestLaunchCDP(t *testing.T) {
	needChromium(t)
	sink, err := proxy.Start(proxy.Config{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = sink.Close() })
	downloads := filepath.Join(t.TempDir(), "downloads")
	b, err := LaunchCDP(context.Background(), CDPOptions{ProxyURL: sink.URL(), DownloadsDir: downloads, Environ: os.Environ()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = b.Close() })
	if !strings.HasPrefix(b.URL(), "http://127.0.0.1:") || !strings.HasPrefix(b.WebSocketURL(), "ws://127.0.0.1:") {
		t.Fatalf("endpoints %q %q are not on loopback", b.URL(), b.WebSocketURL())
	}
	resp, err := http.Get(b.URL() + "/json/version")
	if err != nil {
		t.Fatal(err)
	}
	var v struct {
		Browser string `json:"Browser"`
		WS      string `json:"webSocketDebuggerUrl"`
	}
	err = json.NewDecoder(resp.Body).Decode(&v)
	_ = resp.Body.Close()
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(v.Browser, "Chrom") || v.WS != b.WebSocketURL() {
		t.Fatalf("/json/version = %+v, want a Chromium with websocket %s", v, b.WebSocketURL())
	}
	prefs, err := os.ReadFile(filepath.Join(b.profile, "Default", "Preferences"))
	if err != nil {
		t.Fatal(err)
	}
	abs, _ := filepath.Abs(downloads)
	if !strings.Contains(string(prefs), abs) {
		t.Fatalf("preferences do not name the downloads folder %s", abs)
	}
	pid := b.cmd.Process.Pid
	if err := b.Close(); err != nil {
		t.Fatal(err)
	}
	// Killed children are re-parented and may linger as zombies until reaped: only live ones count.
	out, err := exec.Command("ps", "-eo", "pgid=,stat=").Output()
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(out), "\n") {
		f := strings.Fields(line)
		if len(f) == 2 && f[0] == strconv.Itoa(pid) && !strings.HasPrefix(f[1], "Z") {
			t.Fatalf("a process of group %d is still alive after Close: %q", pid, line)
		}
	}
	if _, err := os.Stat(b.profile); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("profile %s not removed: %v", b.profile, err)
	}
	if err := b.Close(); err != nil {
		t.Fatalf("second Close: %v", err)
	}
}

func TestLaunchCDPNeedsProxyAndDownloads(t *testing.T) {
	if _, err := LaunchCDP(context.Background(), CDPOptions{DownloadsDir: t.TempDir(), Environ: os.Environ()}); err == nil {
		t.Fatal("LaunchCDP without a proxy must fail")
	}
	if _, err := LaunchCDP(context.Background(), CDPOptions{ProxyURL: "http://127.0.0.1:1", Environ: os.Environ()}); err == nil {
		t.Fatal("LaunchCDP without a downloads folder must fail")
	}
}

func TestCDPArgsProxyLoopback(t *testing.T) {
	args := strings.Join(CDPArgs("/p", "http://127.0.0.1:9", nil), " ")
	for _, want := range []string{"--proxy-server=http://127.0.0.1:9", "--proxy-bypass-list=<-loopback>", "--remote-debugging-port=0",
		"--remote-debugging-address=127.0.0.1", "--user-data-dir=/p", "--webrtc-ip-handling-policy=disable_non_proxied_udp",
		"--no-sandbox", "--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run", "--headless",
		"AutofillServerCommunication"} {
		if !strings.Contains(args, want) {
			t.Errorf("CDPArgs lacks %s: %s", want, args)
		}
	}
}

func TestPlaywrightCoreDir(t *testing.T) {
	t.Setenv("PLAYWRIGHT_DRIVER_PATH", t.TempDir())
	if _, err := PlaywrightCoreDir(); err == nil {
		t.Fatal("an empty driver folder must be an error")
	}
	// It is the folder playwright-go resolves (PLAYWRIGHT_DRIVER_PATH here), read through the driver.
	dir := t.TempDir()
	t.Setenv("PLAYWRIGHT_DRIVER_PATH", dir)
	if err := os.MkdirAll(filepath.Join(dir, "package"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "package", "package.json"), []byte("{}"), 0o644); err != nil {
		t.Fatal(err)
	}
	if got, err := PlaywrightCoreDir(); err != nil || got != filepath.Join(dir, "package") {
		t.Fatalf("PlaywrightCoreDir() = %q, %v; want %s", got, err, filepath.Join(dir, "package"))
	}
}
