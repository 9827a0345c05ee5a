package browser

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	playwright "github.com/mxschmitt/playwright-go"

	"github.com/trapline/trapline/proxy"
)

// Options configures Launch.
type Options struct {
	// ExecutablePath is the Chromium binary; default: Executable (TRAPLINE_CHROMIUM, else DefaultChromium).
	ExecutablePath string
	// Headed shows the window (needs a display).
	Headed bool
	// SecureOrigins are plain-HTTP origins Chromium treats as secure contexts. Real portals are HTTPS,
	// where service workers, geolocation and camera exist; the staging world is plain HTTP, so its
	// portal is listed here to make those traps realistic. Default: http://portale.interno.test.
	SecureOrigins []string
	// SinkLog receives the deny decisions of the browser-level sink proxy (browser-internal traffic
	// such as update and connectivity checks). nil discards them.
	SinkLog io.Writer
	// FollowNetworkChanges lets Chromium watch the host's network interfaces. By default it cannot
	// (the netlink shim, see netlink.go): otherwise every interface a Docker engine adds or removes
	// aborts the connections being set up with ERR_NETWORK_CHANGED. The shim needs a C compiler once.
	FollowNetworkChanges bool
	// CA is the CA the browser trusts for HTTPS, alone (trust.go); nil makes a fresh one. Browser.CA
	// returns it, for the worlds the browser serves.
	CA *proxy.CA
	// Environ is the process environment, as KEY=VALUE pairs: the caller passes os.Environ(). Chromium
	// starts in it (with the netlink shim added), and TRAPLINE_CHROMIUM (when ExecutablePath is
	// empty), TRAPLINE_TRACE (sessions' default trace detail) and CC (the shim's compiler) are read
	// from it; the package reads no environment of its own. Required: nil is an error, never an
	// empty environment (pass []string{} for that).
	Environ []string
}

// Browser is a running Chromium whose own traffic goes to a deny-all sink proxy. Each session then gets
// its world's proxy at the context level.
type Browser struct {
	pw   *playwright.Playwright
	b    playwright.Browser
	sink *proxy.Proxy
	tmp  string    // the renderer wrapper's folder (secureorigins.go), removed by Close
	ca   *proxy.CA // the only CA it trusts (trust.go)
	// trace is TRAPLINE_TRACE as the launch's environment had it: sessions' default detail.
	trace string
}

// Launch starts the Playwright driver and Chromium behind a deny-all sink proxy on loopback.
func Launch(opts Options) (*Browser, error) {
	if err := needEnviron("Options.Environ", opts.Environ); err != nil {
		return nil, err
	}
	if err := refuseLoopbackBypass(); err != nil {
		return nil, err
	}
	if err := useSystemNode(); err != nil {
		return nil, err
	}
	exe, err := executableFor(opts.ExecutablePath, opts.Headed, opts.Environ)
	if err != nil {
		return nil, err
	}
	env, err := chromiumEnv(opts.Environ, opts.FollowNetworkChanges)
	if err != nil {
		return nil, err
	}
	ca, err := browserCA(opts.CA)
	if err != nil {
		return nil, err
	}
	sink, pw, err := startSinkAndDriver(opts.SinkLog)
	if err != nil {
		return nil, err
	}
	origins := opts.SecureOrigins
	if origins == nil {
		origins = []string{"http://portale.interno.test"}
	}
	args := append(proxy.ChromiumArgs(), trustArgs(ca)...)
	if len(origins) > 0 {
		args = append(args, secureOriginSwitch+"="+strings.Join(origins, ","))
	}
	tmp, err := os.MkdirTemp("", "trapline-browser-")
	if err != nil {
		_ = pw.Stop()
		_ = sink.Close()
		return nil, fmt.Errorf("browser: temp dir: %w", err)
	}
	wrap, err := rendererWrapperArgs(exe, origins, tmp)
	if err != nil {
		_ = pw.Stop()
		_ = sink.Close()
		_ = os.RemoveAll(tmp)
		return nil, err
	}
	args = append(args, wrap...)
	b, err := pw.Chromium.Launch(playwright.BrowserTypeLaunchOptions{
		ExecutablePath: playwright.String(exe),
		Headless:       playwright.Bool(!opts.Headed),
		Args:           args,
		Env:            envMap(env),
		Proxy:          &playwright.Proxy{Server: sink.URL()},
	})
	if err != nil {
		_ = pw.Stop()
		_ = sink.Close()
		_ = os.RemoveAll(tmp)
		return nil, fmt.Errorf("browser: launch %s: %w", exe, err)
	}
	return &Browser{pw: pw, b: b, sink: sink, tmp: tmp, ca: ca, trace: getenv(opts.Environ, TraceEnv)}, nil
}

// startSinkAndDriver starts what every Browser runs on, launched or remote: the deny-all sink proxy
// for the browser's own traffic (its decisions to sinkLog) and the Playwright driver. When the driver
// cannot start, the sink is closed again.
func startSinkAndDriver(sinkLog io.Writer) (*proxy.Proxy, *playwright.Playwright, error) {
	sink, err := proxy.Start(proxy.Config{Log: sinkLog})
	if err != nil {
		return nil, nil, fmt.Errorf("browser: start sink proxy: %w", err)
	}
	pw, err := runDriver()
	if err != nil {
		_ = sink.Close()
		return nil, nil, fmt.Errorf("browser: start playwright driver (run make setup): %w", err)
	}
	return sink, pw, nil
}

// Version is the browser's version string.
func (b *Browser) Version() string { return b.b.Version() }

// Close closes the browser, the driver and the sink proxy.
func (b *Browser) Close() error {
	return errors.Join(b.b.Close(), b.pw.Stop(), b.sink.Close(), os.RemoveAll(b.tmp))
}
