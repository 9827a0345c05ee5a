package browser

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/url"
	"strings"

	playwright "github.com/mxschmitt/playwright-go"

	"github.com/trapline/trapline/proxy"
)

// RemoteEnv names the environment variable that selects a remote browser: the ws:// endpoint of a
// Playwright browser server (`playwright run-server`, or a grid that speaks its protocol, such as
// Moon or browserless). Unset: the browser is launched here (Launch). AllocatorFromEnv reads it from
// Options.Environ.
const RemoteEnv = "TRAPLINE_BROWSER_WS"

// ErrRemoteUnfenced is returned when a remote browser does not run with the switches that keep its
// traffic on the proxy (proxy.ChromiumArgs, and the sink proxy for its own traffic), or when its
// command line cannot be read to check that: a browser that may send UDP around the proxy is refused,
// never used.
var ErrRemoteUnfenced = errors.New("browser: remote browser not fenced")

// Allocator gives a run its Browser, the way chromedp's Allocator does: LocalAllocator launches
// Chromium on this machine, RemoteAllocator connects to a browser server. Either way every session
// gets the world's proxy at the context level (Browser.NewSession), so a page reaches nothing else.
type Allocator interface {
	// Allocate starts or connects to the browser. The caller closes it.
	Allocate() (*Browser, error)
	// String says which browser, for the run's provenance and logs.
	String() string
}

// LocalAllocator launches Chromium here (Launch).
type LocalAllocator struct{ Options Options }

// Allocate launches Chromium with a.Options.
func (a LocalAllocator) Allocate() (*Browser, error) { return Launch(a.Options) }

func (a LocalAllocator) String() string { return "local chromium" }

// RemoteOptions configures Connect.
type RemoteOptions struct {
	// Endpoint is the browser server's ws:// or wss:// URL; required.
	Endpoint string
	// ExecutablePath asks the server to launch this Chromium (default: TRAPLINE_CHROMIUM, else
	// DefaultChromium, which fits a server on this machine; not the headless shell, whose switches
	// cannot be read). A server without --unsafe ignores it and launches its own Chromium.
	ExecutablePath string
	// ExposeNetwork is Playwright's exposeNetwork: the client's network the remote browser may reach
	// through the connection. A server on another machine needs "<loopback>" to reach the world's
	// proxy (and the sink), which listen on this machine's loopback; nothing wider is ever needed,
	// since every page goes through the world's proxy. Empty: none (a server on this machine).
	ExposeNetwork string
	// SinkLog receives the sink proxy's deny decisions (the browser's own traffic). nil discards them.
	SinkLog io.Writer
	// TimeoutMillis bounds the connection; default 30000.
	TimeoutMillis float64
	// Environ is the process environment TRAPLINE_CHROMIUM (the default ExecutablePath) and
	// TRAPLINE_TRACE (sessions' default trace detail) are read from: the caller passes os.Environ().
	// Required, as Options.Environ.
	Environ []string
}

// RemoteAllocator connects to a Playwright browser server (Connect).
type RemoteAllocator struct{ Options RemoteOptions }

// Allocate connects to a.Options.Endpoint.
func (a RemoteAllocator) Allocate() (*Browser, error) { return Connect(a.Options) }

func (a RemoteAllocator) String() string {
	return "remote browser " + redactEndpoint(a.Options.Endpoint)
}

// AllocatorFromEnv returns RemoteAllocator for the endpoint in RemoteEnv, as local.Environ has it,
// when it is set, else LocalAllocator with local. A nil local.Environ is an error (see
// Options.Environ), and so is a malformed endpoint, not a fallback to a local browser.
func AllocatorFromEnv(local Options) (Allocator, error) {
	if err := needEnviron("Options.Environ", local.Environ); err != nil {
		return nil, err
	}
	ep := strings.TrimSpace(getenv(local.Environ, RemoteEnv))
	if ep == "" {
		return LocalAllocator{Options: local}, nil
	}
	if err := checkEndpoint(ep); err != nil {
		return nil, fmt.Errorf("%s: %w", RemoteEnv, err)
	}
	return RemoteAllocator{Options: RemoteOptions{Endpoint: ep, ExecutablePath: local.ExecutablePath, SinkLog: local.SinkLog, Environ: local.Environ}}, nil
}

func checkEndpoint(ep string) error {
	u, err := url.Parse(ep)
	if err != nil {
		return fmt.Errorf("browser server endpoint %q: %w", redactEndpoint(ep), err)
	}
	if (u.Scheme != "ws" && u.Scheme != "wss") || u.Host == "" {
		return fmt.Errorf("browser server endpoint %q: want ws://host:port/path or wss://", redactEndpoint(ep))
	}
	return nil
}

// redactEndpoint drops the user info and the query (grids take tokens there) from an endpoint.
func redactEndpoint(ep string) string {
	u, err := url.Parse(ep)
	if err != nil {
		return "(unparsable endpoint)"
	}
	u.User, u.RawQuery = nil, ""
	return u.String()
}

// Connect connects to a Playwright browser server and checks the browser it gives: its own traffic
// goes to a deny-all sink proxy on this machine (as Launch's), and it runs with proxy.ChromiumArgs
// (WebRTC UDP only through the proxy, no QUIC, ...). Launch options are asked for in the
// x-playwright-launch-options header; the browser's command line (chrome://version) is checked, since a
// server may drop them (run-server without --unsafe drops the arguments): ErrRemoteUnfenced then.
func Connect(opts RemoteOptions) (*Browser, error) {
	if err := checkEndpoint(opts.Endpoint); err != nil {
		return nil, fmt.Errorf("browser: %w", err)
	}
	if err := needEnviron("RemoteOptions.Environ", opts.Environ); err != nil {
		return nil, err
	}
	if err := refuseLoopbackBypass(); err != nil {
		return nil, err
	}
	if err := useSystemNode(); err != nil {
		return nil, err
	}
	exe := opts.ExecutablePath
	if exe == "" {
		// The full Chromium (TRAPLINE_CHROMIUM when set), not the headless shell that is Launch's
		// default: the shell has no chrome://version, so its switches could not be checked.
		if e, err := executableFor("", true, opts.Environ); err == nil {
			exe = e
		}
	}
	ca, err := browserCA(nil)
	if err != nil {
		return nil, err
	}
	sink, pw, err := startSinkAndDriver(opts.SinkLog)
	if err != nil {
		return nil, err
	}
	launch := map[string]any{
		"headless": true,
		"args":     append(proxy.ChromiumArgs(), trustArgs(ca)...),
		"proxy":    map[string]string{"server": sink.URL()},
	}
	if exe != "" {
		launch["executablePath"] = exe
	}
	hdr, err := json.Marshal(launch)
	if err != nil {
		_ = pw.Stop()
		_ = sink.Close()
		return nil, fmt.Errorf("browser: launch options: %w", err)
	}
	timeout := opts.TimeoutMillis
	if timeout == 0 {
		timeout = 30000
	}
	co := playwright.BrowserTypeConnectOptions{
		Headers: map[string]string{"x-playwright-launch-options": string(hdr)},
		Timeout: playwright.Float(timeout),
	}
	if opts.ExposeNetwork != "" {
		co.ExposeNetwork = playwright.String(opts.ExposeNetwork)
	}
	b, err := pw.Chromium.Connect(opts.Endpoint, co)
	if err != nil {
		_ = pw.Stop()
		_ = sink.Close()
		return nil, fmt.Errorf("browser: connect to %s: %w", redactEndpoint(opts.Endpoint), err)
	}
	br := &Browser{pw: pw, b: b, sink: sink, ca: ca, trace: getenv(opts.Environ, TraceEnv)}
	if err := checkFenced(b, sink.URL()); err != nil {
		_ = br.Close()
		return nil, fmt.Errorf("browser: %s: %w", redactEndpoint(opts.Endpoint), err)
	}
	return br, nil
}

// checkFenced reads the browser's command line from chrome://version in a throwaway context (CDP's
// Browser.getBrowserCommandLine needs --enable-automation, which would change the browser under test)
// and wants every switch of proxy.ChromiumArgs and the sink as its proxy server. chrome:// pages are
// the browser's own: loading one sends no request.
func checkFenced(b playwright.Browser, sinkURL string) error {
	ctx, err := b.NewContext()
	if err != nil {
		return fmt.Errorf("%w: open a context to read its command line: %v", ErrRemoteUnfenced, err)
	}
	defer func() { _ = ctx.Close() }()
	page, err := ctx.NewPage()
	if err != nil {
		return fmt.Errorf("%w: open a page to read its command line: %v", ErrRemoteUnfenced, err)
	}
	if _, err := page.Goto("chrome://version", playwright.PageGotoOptions{Timeout: playwright.Float(30000)}); err != nil {
		return fmt.Errorf("%w: chrome://version (a headless shell has none; use the full Chromium): %v", ErrRemoteUnfenced, err)
	}
	line, err := page.Locator("#command_line").TextContent(playwright.LocatorTextContentOptions{Timeout: playwright.Float(10000)})
	if err != nil {
		return fmt.Errorf("%w: chrome://version has no command line: %v", ErrRemoteUnfenced, err)
	}
	args := strings.Fields(line)
	if len(args) == 0 {
		return fmt.Errorf("%w: chrome://version shows an empty command line", ErrRemoteUnfenced)
	}
	return missingSwitches(args, append(proxy.ChromiumArgs(), "--proxy-server="+sinkURL))
}

// missingSwitches names the switches of want that args lacks (a "--proxy-server=http://h:p" also
// matches args' "--proxy-server=h:p" form).
func missingSwitches(args, want []string) error {
	have := map[string]bool{}
	for _, a := range args {
		have[a] = true
	}
	var missing []string
	for _, w := range want {
		if have[w] {
			continue
		}
		if v, ok := strings.CutPrefix(w, "--proxy-server="); ok && have["--proxy-server="+strings.TrimPrefix(v, "http://")] {
			continue
		}
		missing = append(missing, w)
	}
	if len(missing) > 0 {
		return fmt.Errorf("%w: its command line lacks %s (a server that drops launch arguments, e.g. run-server without --unsafe, cannot host a fenced run)", ErrRemoteUnfenced, strings.Join(missing, " "))
	}
	return nil
}
