package browser

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	playwright "github.com/mxschmitt/playwright-go"

	"github.com/trapline/trapline/proxy"
)

// CDPOptions configures LaunchCDP.
type CDPOptions struct {
	// ExecutablePath is the Chromium binary; default: Executable (TRAPLINE_CHROMIUM, else DefaultChromium).
	ExecutablePath string
	// ProxyURL is the world's egress proxy; required. It is the browser's only route out: loopback is
	// proxied too (--proxy-bypass-list=<-loopback>), and so is the browser's own background traffic.
	ProxyURL string
	// DownloadsDir receives every download (Chromium's download.default_directory, no prompt), so an
	// outside observer finds the files on disk; required. It is created if missing.
	DownloadsDir string
	// SecureOrigins are plain-HTTP origins Chromium treats as secure contexts (see Options); default
	// http://portale.interno.test.
	SecureOrigins []string
	// StartTimeout bounds the wait for the DevTools endpoint; default 20s.
	StartTimeout time.Duration
	// Log, when set, receives Chromium's stderr.
	Log io.Writer
	// FollowNetworkChanges: see Options.
	FollowNetworkChanges bool
	// Extensions are unpacked extension folders (each with a manifest.json) loaded into the browser
	// (--load-extension, and --disable-extensions-except so no other runs): an agent that lives in an
	// extension. Their traffic takes the browser's proxy like the pages'. The default browser is then
	// full Chromium: the headless shell loads no extensions (choosing it is an error).
	Extensions []string

	// CA, when set, is the one CA the browser trusts for HTTPS (trust.go's switch): the world's,
	// whose proxy intercepts HTTPS with it. Nil trusts none: HTTPS through the world fails.
	CA *proxy.CA
	// Environ is the process environment Chromium starts in and TRAPLINE_CHROMIUM and CC are read
	// from (see Options.Environ); required.
	Environ []string

	// preloading leaves Chromium's preloading on: the control of TestCDPBrowserPreloadsNothing only.
	preloading bool
}

// CDPBrowser is a headless Chromium that an agent trapline did not write drives over the Chrome
// DevTools Protocol. It runs in its own process group with a fresh profile; Close kills the group and
// removes the profile.
type CDPBrowser struct {
	cmd     *exec.Cmd
	profile string
	url     string
	wsURL   string
	exited  chan struct{}

	closeOnce sync.Once
	closeErr  error
}

// activePortFile is the file Chromium writes in its profile with the DevTools port (line 1) and the
// browser target's path (line 2) when started with --remote-debugging-port=0.
const activePortFile = "DevToolsActivePort"

// LaunchCDP starts Chromium headless with remote debugging on a random loopback port, every request
// sent to o.ProxyURL, and downloads saved to o.DownloadsDir. It waits until the DevTools endpoint is
// announced (or the process exits, or the timeout passes).
func LaunchCDP(ctx context.Context, o CDPOptions) (*CDPBrowser, error) {
	if err := needEnviron("CDPOptions.Environ", o.Environ); err != nil {
		return nil, err
	}
	if err := refuseLoopbackBypass(); err != nil {
		return nil, err
	}
	if o.ProxyURL == "" || o.DownloadsDir == "" {
		return nil, errors.New("browser: LaunchCDP needs ProxyURL and DownloadsDir")
	}
	// An agent under test gets full Chromium by default, not the headless shell that trapline's own
	// sessions use: the shell reads no profile preferences (so writePreferences' preloading-off and
	// download settings would not reach it; TestCDPBrowserPreloadsNothing) and loads no extensions.
	exe, err := executableFor(o.ExecutablePath, true, o.Environ)
	if err != nil {
		return nil, err
	}
	if len(o.Extensions) > 0 && isHeadlessShell(exe) {
		return nil, fmt.Errorf("browser: %s is the headless shell, which cannot load extensions: use full Chromium (%s=chromium)", exe, ChromiumEnv)
	}
	if o.StartTimeout == 0 {
		o.StartTimeout = 20 * time.Second
	}
	origins := o.SecureOrigins
	if origins == nil {
		origins = []string{"http://portale.interno.test"}
	}
	downloads, err := filepath.Abs(o.DownloadsDir)
	if err != nil {
		return nil, fmt.Errorf("browser: downloads folder %s: %w", o.DownloadsDir, err)
	}
	if err := os.MkdirAll(downloads, 0o755); err != nil {
		return nil, fmt.Errorf("browser: create downloads folder: %w", err)
	}
	env, err := chromiumEnv(o.Environ, o.FollowNetworkChanges)
	if err != nil {
		return nil, err
	}
	profile, err := os.MkdirTemp("", "trapline-cdp-")
	if err != nil {
		return nil, fmt.Errorf("browser: create profile: %w", err)
	}
	if err := writePreferences(profile, downloads, o.preloading); err != nil {
		_ = os.RemoveAll(profile)
		return nil, err
	}
	wrap, err := rendererWrapperArgs(exe, origins, profile)
	if err != nil {
		_ = os.RemoveAll(profile)
		return nil, err
	}
	if len(o.Extensions) > 0 {
		dirs, err := extensionDirs(o.Extensions)
		if err != nil {
			_ = os.RemoveAll(profile)
			return nil, err
		}
		wrap = append(wrap, "--load-extension="+dirs, "--disable-extensions-except="+dirs)
	}
	if o.CA != nil {
		wrap = append(wrap, trustArgs(o.CA)...)
	}
	args := CDPArgs(profile, o.ProxyURL, origins)
	args = append(args[:len(args)-1:len(args)-1], append(wrap, args[len(args)-1])...) // the URL stays last
	cmd := exec.Command(exe, args...)
	cmd.Env = env
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Stdout = o.Log
	cmd.Stderr = o.Log
	if err := cmd.Start(); err != nil {
		_ = os.RemoveAll(profile)
		return nil, fmt.Errorf("browser: start %s: %w", exe, err)
	}
	b := &CDPBrowser{cmd: cmd, profile: profile, exited: make(chan struct{})}
	go func() { _ = cmd.Wait(); close(b.exited) }()
	if err := b.waitReady(ctx, o.StartTimeout); err != nil {
		return nil, errors.Join(err, b.Close())
	}
	return b, nil
}

// CDPArgs returns the command line LaunchCDP gives Chromium: proxy.ChromiumArgs (WebRTC restricted to
// proxied UDP, QUIC off, no background networking, component updates, sync or first run, no sandbox),
// headless, a fresh profile, DevTools on a random loopback port, and the proxy for every destination,
// loopback included.
func CDPArgs(profile, proxyURL string, secureOrigins []string) []string {
	args := append(proxy.ChromiumArgs(),
		"--headless",
		"--user-data-dir="+profile,
		"--remote-debugging-address=127.0.0.1",
		"--remote-debugging-port=0",
		"--proxy-server="+proxyURL,
		// Chromium bypasses the proxy for loopback by default; this removes that implicit rule.
		"--proxy-bypass-list=<-loopback>",
		"--no-default-browser-check",
		"--password-store=basic",
		"--use-mock-keychain",
		// Features that make full Chromium send requests of its own about a page: the autofill server
		// query for every form (content-autofill.googleapis.com, seen through the run's context proxy
		// with a form on the page), page hints, network time, translation. Through the world's proxy
		// they would be judged as the agent's outside requests. Playwright's own list does this for
		// the sessions it launches; nothing else sets this switch on a CDP launch (Chromium reads the
		// last --disable-features only).
		"--disable-features="+strings.Join(cdpDisabledFeatures, ","),
	)
	if len(secureOrigins) > 0 {
		args = append(args, "--unsafely-treat-insecure-origin-as-secure="+strings.Join(secureOrigins, ","))
	}
	return append(args, "about:blank")
}

// cdpDisabledFeatures are the Chromium features CDPArgs turns off (see there).
var cdpDisabledFeatures = []string{"AutofillServerCommunication", "OptimizationHints", "NetworkTimeServiceQuerying",
	"Translate", "MediaRouter", "DialMediaRouteProvider", "CertificateTransparencyComponentUpdater", "LensOverlay"}

// networkPredictionDisabled is Chromium's NetworkPredictionOptions::kDisabled, the value of the
// net.network_prediction_options preference that turns every kind of preloading off.
const networkPredictionDisabled = 2

// writePreferences seeds the profile so downloads land in dir without a prompt, and with preloading
// (speculation rules, link prediction) off.
func writePreferences(profile, dir string, preloading bool) error {
	prefs := map[string]any{
		"download": map[string]any{"default_directory": dir, "prompt_for_download": false, "directory_upgrade": true},
		"savefile": map[string]any{"default_directory": dir},
		// "Preload pages: no preloading". An agent trapline did not write drives this browser, so no
		// in-page guard of ours (unseen.go) takes speculation rules out of its pages; with this
		// setting Chromium acts on none of them (prerender and prefetch are ineligible,
		// PreloadingDisabled), whichever way they came (script element or Speculation-Rules header).
		"net": map[string]any{"network_prediction_options": networkPredictionDisabled},
	}
	if preloading {
		delete(prefs, "net")
	}
	b, err := json.Marshal(prefs)
	if err != nil {
		return fmt.Errorf("browser: encode preferences: %w", err)
	}
	def := filepath.Join(profile, "Default")
	if err := os.MkdirAll(def, 0o700); err != nil {
		return fmt.Errorf("browser: create profile: %w", err)
	}
	if err := os.WriteFile(filepath.Join(def, "Preferences"), b, 0o600); err != nil {
		return fmt.Errorf("browser: write preferences: %w", err)
	}
	return nil
}

// waitReady waits for DevToolsActivePort. Chromium writes it once the endpoint listens; it is polled
// because no portable file-creation event exists, and the wait ends early when the process exits.
func (b *CDPBrowser) waitReady(ctx context.Context, timeout time.Duration) error {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	tick := time.NewTicker(25 * time.Millisecond)
	defer tick.Stop()
	path := filepath.Join(b.profile, activePortFile)
	for {
		port, wsPath, err := readActivePort(path)
		if err == nil {
			b.url = "http://127.0.0.1:" + strconv.Itoa(port)
			b.wsURL = "ws://127.0.0.1:" + strconv.Itoa(port) + wsPath
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("browser: no DevTools endpoint after %s (%s: %v): %w", timeout, path, err, ctx.Err())
		case <-b.exited:
			return fmt.Errorf("browser: chromium exited before announcing its DevTools endpoint: %v", b.cmd.ProcessState)
		case <-tick.C:
		}
	}
}

// readActivePort parses DevToolsActivePort; a partly written file is an error (read again later).
func readActivePort(path string) (int, string, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, "", err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	var lines []string
	for sc.Scan() {
		lines = append(lines, strings.TrimSpace(sc.Text()))
	}
	if len(lines) < 2 || !strings.HasPrefix(lines[1], "/devtools/browser/") {
		return 0, "", fmt.Errorf("incomplete %s", activePortFile)
	}
	port, err := strconv.Atoi(lines[0])
	if err != nil || port <= 0 || port > 65535 {
		return 0, "", fmt.Errorf("bad port %q in %s", lines[0], activePortFile)
	}
	return port, lines[1], nil
}

// URL is the DevTools HTTP endpoint (http://127.0.0.1:PORT), what Playwright's connectOverCDP and
// chromedp's remote allocator take.
func (b *CDPBrowser) URL() string { return b.url }

// WebSocketURL is the browser target's DevTools WebSocket (ws://127.0.0.1:PORT/devtools/browser/ID).
func (b *CDPBrowser) WebSocketURL() string { return b.wsURL }

// Close kills Chromium's process group, waits for the browser process and removes the profile. It is
// safe to call more than once.
func (b *CDPBrowser) Close() error {
	b.closeOnce.Do(func() {
		// The group holds the browser and its renderer, GPU and utility children.
		if err := syscall.Kill(-b.cmd.Process.Pid, syscall.SIGKILL); err != nil && !errors.Is(err, syscall.ESRCH) {
			b.closeErr = fmt.Errorf("browser: kill chromium: %w", err)
		}
		<-b.exited
		if err := os.RemoveAll(b.profile); err != nil {
			b.closeErr = errors.Join(b.closeErr, fmt.Errorf("browser: remove profile: %w", err))
		}
	})
	return b.closeErr
}

// PlaywrightCoreDir is the playwright-core package of the Playwright driver that playwright-go
// installed: the folder of the cli.js playwright-go runs (PLAYWRIGHT_DRIVER_PATH, or
// ~/.cache/ms-playwright-go/<version>, then /package; PLAYWRIGHT_CLI_PATH's folder when that is set),
// as playwright-go itself resolves it, so this package reads none of those variables. Node.js agents
// can require it to drive a CDPBrowser without installing anything.
func PlaywrightCoreDir() (string, error) {
	_, cli, err := driverCommand(&playwright.RunOptions{SkipInstallBrowsers: true})
	if err != nil {
		return "", err
	}
	pkg := filepath.Dir(cli)
	if _, err := os.Stat(filepath.Join(pkg, "package.json")); err != nil {
		return "", fmt.Errorf("browser: playwright-core not found at %s (run trapline setup): %w", pkg, err)
	}
	return pkg, nil
}
