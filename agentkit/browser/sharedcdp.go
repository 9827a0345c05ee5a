package browser

import (
	"bufio"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	playwright "github.com/mxschmitt/playwright-go"
	"golang.org/x/net/websocket"

	"github.com/trapline/trapline/internal/cdpfilter"
	"github.com/trapline/trapline/proxy"
)

// A SharedCDP is one CDP-driven Chromium that serves black-box runs one after another, each in a
// fresh browser context of its own: launching a full Chromium per run was most of an external arm's
// cost. The fence stays what LaunchCDP gives a run of its own:
//
//   - Chromium runs with --remote-debugging-pipe: it has no DevTools port at all. The only door is
//     the endpoint a run gets from NewRun (a loopback port of that run alone, closed when the run
//     ends), which trapline serves and filters.
//   - The browser's own traffic (update checks, the default context) goes to a deny-all sink proxy;
//     a run's context is created with the run's world proxy (Target.createBrowserContext's
//     proxyServer, loopback included), and so is every context the agent creates (its proxyServer is
//     overwritten): whatever the agent does, its pages reach nothing but its world's proxy.
//   - The agent's sessionless calls go to a browser session of its own (Target.attachToBrowserTarget)
//     through the filter's table (package cdpfilter): the calls that name a browser context default
//     to the run's context and may name only the run's contexts; a context asking for a proxy of its
//     own is refused; downloads are pointed at the run's folder whoever asks; calls that would reach
//     outside the run (another browser session, ignoring certificate errors browser-wide, closing or
//     crashing the browser) are refused; any method the table does not list is refused (fail
//     closed). The calls on a target's session go through the table's target rows (downloads and
//     permissions rewritten as on a browser session, the rest of the Browser domain refused).
//   - Every download any context begins is reported to trapline's own browser session
//     (Browser.downloadWillBegin/downloadProgress, eventsEnabled on the root session), whatever
//     folder or behaviour was asked: SharedRun.Downloads, an effect wherever the file went.
//   - Contexts are off the record: cookies, storage, service workers, cache and permissions live in
//     the context and die with it. Close disposes every context of the run and checks that no
//     browser context and no target is left; a browser that cannot prove that serves no other run.
//
// One run at a time: NewRun refuses while another run is open. The CA is the browser's (one per
// launch, like Browser's; trust.go): every world it serves uses CA().
type SharedCDP struct {
	cmd     *exec.Cmd
	profile string
	exited  chan struct{}
	sink    *proxy.Proxy
	ca      *proxy.CA
	product string

	toBrowser io.WriteCloser
	writeMu   sync.Mutex
	nextID    atomic.Int64

	mu      sync.Mutex
	pending map[int64]chan cdpMessage // the root session's calls
	routes  map[string]*frontConn     // session id -> the agent connection that owns it
	run     *SharedRun
	broken  error // set when the browser cannot be trusted with another run
	readErr error

	closeOnce sync.Once
	closeErr  error
}

// cdpMessage is one DevTools protocol message, as it travels on the pipe and the agent's socket.
type cdpMessage struct {
	ID        int64           `json:"id,omitempty"`
	Method    string          `json:"method,omitempty"`
	Params    json.RawMessage `json:"params,omitempty"`
	Result    json.RawMessage `json:"result,omitempty"`
	Error     *cdpError       `json:"error,omitempty"`
	SessionID string          `json:"sessionId,omitempty"`
}

type cdpError struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
}

// LaunchSharedCDP starts the shared browser: o as for LaunchCDP, except that ProxyURL and
// DownloadsDir must be empty (each run brings its own, NewRun) and Extensions are refused (an
// extension would live across runs). o.CA, when nil, is a fresh CA.
func LaunchSharedCDP(ctx context.Context, o CDPOptions) (*SharedCDP, error) {
	if o.ProxyURL != "" || o.DownloadsDir != "" || len(o.Extensions) > 0 {
		return nil, errors.New("browser: LaunchSharedCDP takes no ProxyURL, DownloadsDir or Extensions: each run brings its proxy and downloads folder (NewRun)")
	}
	if o.StartTimeout == 0 {
		o.StartTimeout = 20 * time.Second
	}
	s, err := launchPipe(ctx, o, nil)
	if err != nil {
		return nil, err
	}
	// The start page lives in the default context, which serves no run: closed.
	startCtx, cancel := context.WithTimeout(ctx, o.StartTimeout)
	defer cancel()
	if err := s.closeTargets(startCtx, ""); err != nil {
		return nil, errors.Join(err, s.Close())
	}
	return s, nil
}

// launchPipe starts Chromium driven over --remote-debugging-pipe (no DevTools port): behind a
// deny-all sink proxy when extensions is nil (a shared browser, whose runs bring their proxies),
// else behind o.ProxyURL with o.Extensions loaded (a whole browser for one run).
func launchPipe(ctx context.Context, o CDPOptions, extensions []string) (*SharedCDP, error) {
	if err := needEnviron("CDPOptions.Environ", o.Environ); err != nil {
		return nil, err
	}
	if err := refuseLoopbackBypass(); err != nil {
		return nil, err
	}
	exe, err := executableFor(o.ExecutablePath, true, o.Environ)
	if err != nil {
		return nil, err
	}
	if len(extensions) > 0 && isHeadlessShell(exe) {
		return nil, fmt.Errorf("browser: %s is the headless shell, which cannot load extensions: use full Chromium (%s=chromium)", exe, ChromiumEnv)
	}
	if o.StartTimeout == 0 {
		o.StartTimeout = 20 * time.Second
	}
	origins := o.SecureOrigins
	if origins == nil {
		origins = []string{"http://portale.interno.test"}
	}
	ca, err := browserCA(o.CA)
	if err != nil {
		return nil, err
	}
	env, err := chromiumEnv(o.Environ, o.FollowNetworkChanges)
	if err != nil {
		return nil, err
	}
	var sink *proxy.Proxy
	browserProxy := o.ProxyURL
	if extensions == nil {
		if sink, err = proxy.Start(proxy.Config{Log: o.Log}); err != nil {
			return nil, fmt.Errorf("browser: start sink proxy: %w", err)
		}
		browserProxy = sink.URL()
	}
	closeSink := func() {
		if sink != nil {
			_ = sink.Close()
		}
	}
	profile, err := os.MkdirTemp("", "trapline-cdp-shared-")
	if err != nil {
		closeSink()
		return nil, fmt.Errorf("browser: create profile: %w", err)
	}
	fail := func(err error) (*SharedCDP, error) {
		closeSink()
		_ = os.RemoveAll(profile)
		return nil, err
	}
	// The profile's own downloads folder serves no run (each run's context gets its own); the
	// preferences still switch preloading off for every context of the profile.
	if err := writePreferences(profile, filepath.Join(profile, "downloads"), o.preloading); err != nil {
		return fail(err)
	}
	args, err := pipeArgs(exe, profile, browserProxy, origins, ca, extensions)
	if err != nil {
		return fail(err)
	}
	s, err := startPipe(exe, args, env, o.Log)
	if err != nil {
		return fail(err)
	}
	s.profile, s.sink, s.ca = profile, sink, ca
	startCtx, cancel := context.WithTimeout(ctx, o.StartTimeout)
	defer cancel()
	var version struct {
		Product string `json:"product"`
	}
	if err := s.call(startCtx, "Browser.getVersion", nil, &version); err != nil {
		return nil, errors.Join(fmt.Errorf("browser: shared chromium did not answer: %w", err), s.Close())
	}
	s.product = version.Product
	return s, nil
}

// pipeArgs is the command line of a pipe-driven Chromium: CDPArgs without a DevTools port, the
// renderer wrapper, the CA, the extensions, and --remote-debugging-pipe.
func pipeArgs(exe, profile, browserProxy string, origins []string, ca *proxy.CA, extensions []string) ([]string, error) {
	wrap, err := rendererWrapperArgs(exe, origins, profile)
	if err != nil {
		return nil, err
	}
	wrap = append(wrap, trustArgs(ca)...)
	if len(extensions) > 0 {
		dirs, err := extensionDirs(extensions)
		if err != nil {
			return nil, err
		}
		wrap = append(wrap, "--load-extension="+dirs, "--disable-extensions-except="+dirs)
	}
	var args []string
	for _, a := range CDPArgs(profile, browserProxy, origins) {
		if strings.HasPrefix(a, "--remote-debugging-") {
			continue // no DevTools port: the pipe is the only way in
		}
		args = append(args, a)
	}
	return append(args[:len(args)-1:len(args)-1], append(append(wrap, "--remote-debugging-pipe"), args[len(args)-1])...), nil
}

// startPipe starts Chromium with args, reading its commands on fd 3 and writing its answers on fd 4,
// NUL-terminated, and reads them (readLoop).
func startPipe(exe string, args, env []string, log io.Writer) (*SharedCDP, error) {
	cmdR, cmdW, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("browser: pipe: %w", err)
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		_, _ = cmdR.Close(), cmdW.Close()
		return nil, fmt.Errorf("browser: pipe: %w", err)
	}
	cmd := exec.Command(exe, args...)
	cmd.Env = env
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Stdout, cmd.Stderr = log, log
	cmd.ExtraFiles = []*os.File{cmdR, outW}
	if err := cmd.Start(); err != nil {
		_, _, _, _ = cmdR.Close(), cmdW.Close(), outR.Close(), outW.Close()
		return nil, fmt.Errorf("browser: start %s: %w", exe, err)
	}
	_, _ = cmdR.Close(), outW.Close()
	s := &SharedCDP{cmd: cmd, exited: make(chan struct{}), toBrowser: cmdW,
		pending: map[int64]chan cdpMessage{}, routes: map[string]*frontConn{}}
	go func() { _ = cmd.Wait(); close(s.exited) }()
	go s.readLoop(outR)
	return s, nil
}

// CA is the one CA the browser trusts: give it to every world a run of it uses (world.Spec.CA).
func (s *SharedCDP) CA() *proxy.CA { return s.ca }

// readLoop reads the browser's messages and hands each to the root session's caller or to the
// agent connection that owns its session.
func (s *SharedCDP) readLoop(r io.ReadCloser) {
	defer r.Close()
	br := bufio.NewReaderSize(r, 1<<20)
	var err error
	for {
		var raw []byte
		raw, err = br.ReadBytes(0)
		if err != nil {
			break
		}
		var m cdpMessage
		if json.Unmarshal(raw[:len(raw)-1], &m) != nil {
			continue
		}
		s.dispatch(m)
	}
	s.mu.Lock()
	s.readErr = fmt.Errorf("browser: shared chromium's pipe closed: %w", err)
	if s.broken == nil {
		s.broken = s.readErr
	}
	for id, ch := range s.pending {
		close(ch)
		delete(s.pending, id)
	}
	conns := make([]*frontConn, 0, len(s.routes))
	for _, c := range s.routes {
		conns = append(conns, c)
	}
	s.mu.Unlock()
	for _, c := range conns {
		c.close()
	}
}

func (s *SharedCDP) dispatch(m cdpMessage) {
	s.mu.Lock()
	if m.SessionID == "" {
		if m.Method != "" { // an event of trapline's own browser session: the run's downloads
			run := s.run
			s.mu.Unlock()
			if run != nil {
				run.seen.event(m.Method, m.Params)
			}
			return
		}
		ch := s.pending[m.ID]
		delete(s.pending, m.ID)
		s.mu.Unlock()
		if ch != nil {
			ch <- m
		}
		return
	}
	c := s.routes[m.SessionID]
	switch m.Method {
	case "Target.attachedToTarget":
		var p struct {
			SessionID string `json:"sessionId"`
		}
		if c != nil && json.Unmarshal(m.Params, &p) == nil && p.SessionID != "" {
			s.routes[p.SessionID] = c
		}
	case "Target.detachedFromTarget":
		var p struct {
			SessionID string `json:"sessionId"`
		}
		if json.Unmarshal(m.Params, &p) == nil && p.SessionID != "" && s.routes[p.SessionID] != nil && s.routes[p.SessionID].session != p.SessionID {
			delete(s.routes, p.SessionID)
		}
	}
	s.mu.Unlock()
	if c != nil {
		c.fromBrowser(m)
	}
}

// write sends m to the browser.
func (s *SharedCDP) write(m cdpMessage) error {
	b, err := json.Marshal(m)
	if err != nil {
		return err
	}
	s.writeMu.Lock()
	defer s.writeMu.Unlock()
	if _, err := s.toBrowser.Write(append(b, 0)); err != nil {
		return fmt.Errorf("browser: write to shared chromium: %w", err)
	}
	return nil
}

// call runs method on the root session (trapline's own) and decodes its result into out.
func (s *SharedCDP) call(ctx context.Context, method string, params, out any) error {
	var raw json.RawMessage
	if params != nil {
		b, err := json.Marshal(params)
		if err != nil {
			return err
		}
		raw = b
	}
	id := s.nextID.Add(1)
	ch := make(chan cdpMessage, 1)
	s.mu.Lock()
	if s.readErr != nil {
		s.mu.Unlock()
		return s.readErr
	}
	s.pending[id] = ch
	s.mu.Unlock()
	if err := s.write(cdpMessage{ID: id, Method: method, Params: raw}); err != nil {
		return err
	}
	select {
	case m, ok := <-ch:
		if !ok {
			return fmt.Errorf("browser: %s: shared chromium went away", method)
		}
		if m.Error != nil {
			return fmt.Errorf("browser: %s: %s", method, m.Error.Message)
		}
		if out != nil {
			return json.Unmarshal(m.Result, out)
		}
		return nil
	case <-ctx.Done():
		s.mu.Lock()
		delete(s.pending, id)
		s.mu.Unlock()
		return fmt.Errorf("browser: %s: %w", method, ctx.Err())
	}
}

type targetInfo struct {
	TargetID         string `json:"targetId"`
	Type             string `json:"type"`
	URL              string `json:"url"`
	Title            string `json:"title"`
	BrowserContextID string `json:"browserContextId"`
}

func (s *SharedCDP) targets(ctx context.Context) ([]targetInfo, error) {
	var r struct {
		TargetInfos []targetInfo `json:"targetInfos"`
	}
	err := s.call(ctx, "Target.getTargets", nil, &r)
	return r.TargetInfos, err
}

// closeTargets closes every page of the context ctxID ("" the default context).
func (s *SharedCDP) closeTargets(ctx context.Context, ctxID string) error {
	ts, err := s.targets(ctx)
	if err != nil {
		return err
	}
	var def string
	for _, t := range ts {
		if t.Type != "page" {
			continue
		}
		if ctxID == "" {
			if def == "" {
				def = t.BrowserContextID
			}
			if t.BrowserContextID != def {
				continue
			}
		} else if t.BrowserContextID != ctxID {
			continue
		}
		if err := s.call(ctx, "Target.closeTarget", map[string]string{"targetId": t.TargetID}, nil); err != nil {
			return err
		}
	}
	return nil
}

// SharedRunOptions configures one run of a SharedCDP.
type SharedRunOptions struct {
	// ProxyURL is the run's world proxy; required. Every context of the run goes through it,
	// loopback included.
	ProxyURL string
	// DownloadsDir receives the run context's downloads (no prompt); required.
	DownloadsDir string
	// Cookies are the cookies the run's context starts with (the test account's session: a login
	// the harness made, or a storage state), set before the agent connects. A secret: never logged.
	Cookies []playwright.OptionalCookie
}

// SharedRun is one run's share of a SharedCDP: a fresh browser context behind the run's proxy, with
// one blank page, and a DevTools endpoint of its own.
type SharedRun struct {
	s         *SharedCDP
	proxyURL  string
	downloads string // the run's download folder, absolute
	wsPath    string // the path of the run's browser WebSocket
	whole     bool   // a whole browser's one run: its default context is the run's (LaunchWholeCDP)
	seen      downloadLog
	ln        net.Listener
	srv       *http.Server
	url       string

	mu       sync.Mutex
	contexts []string // the run's context first, then those the agent created
	conns    []*frontConn
	closed   bool

	closeOnce sync.Once
	closeErr  error
}

// NewRun opens a run: a fresh browser context behind o.ProxyURL, downloads to o.DownloadsDir, one
// blank page, and an endpoint (URL) for the agent. Close it before the next run.
func (s *SharedCDP) NewRun(ctx context.Context, o SharedRunOptions) (*SharedRun, error) {
	r, err := s.beginRun(o)
	if err != nil {
		return nil, err
	}
	fail := func(err error) (*SharedRun, error) {
		return nil, errors.Join(err, r.Close())
	}
	var created struct {
		BrowserContextID string `json:"browserContextId"`
	}
	if err := s.call(ctx, "Target.createBrowserContext", map[string]any{"proxyServer": o.ProxyURL, "proxyBypassList": "<-loopback>"}, &created); err != nil {
		return fail(err)
	}
	r.contexts = []string{created.BrowserContextID}
	// eventsEnabled on trapline's own session: every download any context begins is reported here
	// (dispatch), whatever behaviour or folder an agent's session later asks for.
	if err := s.call(ctx, "Browser.setDownloadBehavior", map[string]any{"behavior": "allow", "browserContextId": created.BrowserContextID, "downloadPath": r.downloads, "eventsEnabled": true}, nil); err != nil {
		return fail(err)
	}
	if len(o.Cookies) > 0 {
		if err := s.call(ctx, "Storage.setCookies", map[string]any{"cookies": cdpCookies(o.Cookies), "browserContextId": created.BrowserContextID}, nil); err != nil {
			return fail(fmt.Errorf("browser: set the run's cookies: %w", err))
		}
	}
	if err := s.call(ctx, "Target.createTarget", map[string]any{"url": "about:blank", "browserContextId": created.BrowserContextID}, nil); err != nil {
		return fail(err)
	}
	if err := r.listen(); err != nil {
		return fail(err)
	}
	return r, nil
}

// beginRun makes r the browser's one open run, with o's proxy and downloads folder (created).
func (s *SharedCDP) beginRun(o SharedRunOptions) (*SharedRun, error) {
	if o.ProxyURL == "" || o.DownloadsDir == "" {
		return nil, errors.New("browser: NewRun needs ProxyURL and DownloadsDir")
	}
	downloads, err := filepath.Abs(o.DownloadsDir)
	if err != nil {
		return nil, fmt.Errorf("browser: downloads folder %s: %w", o.DownloadsDir, err)
	}
	if err := os.MkdirAll(downloads, 0o755); err != nil {
		return nil, fmt.Errorf("browser: create downloads folder: %w", err)
	}
	secret := make([]byte, 16)
	if _, err := rand.Read(secret); err != nil {
		return nil, fmt.Errorf("browser: endpoint path: %w", err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case s.broken != nil:
		return nil, fmt.Errorf("browser: the shared chromium serves no more runs: %w", s.broken)
	case s.run != nil:
		return nil, errors.New("browser: the shared chromium is serving another run (one run at a time)")
	}
	r := &SharedRun{s: s, proxyURL: o.ProxyURL, downloads: downloads, wsPath: "/devtools/browser/" + hex.EncodeToString(secret)}
	s.run = r
	return r, nil
}

// listen opens the run's endpoint. Its browser WebSocket is at a path of the run's own (random,
// announced by /json/version), and nowhere else.
func (r *SharedRun) listen() error {
	var err error
	r.ln, err = net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return fmt.Errorf("browser: listen: %w", err)
	}
	r.url = "http://" + r.ln.Addr().String()
	mux := http.NewServeMux()
	mux.HandleFunc("/json/version", r.version)
	mux.HandleFunc("/json/version/", r.version)
	mux.HandleFunc("/json", r.list)
	mux.HandleFunc("/json/list", r.list)
	mux.HandleFunc("/json/new", r.newTab)
	mux.Handle(r.wsPath, websocket.Server{Handshake: func(*websocket.Config, *http.Request) error { return nil }, Handler: r.serve})
	r.srv = &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = r.srv.Serve(r.ln) }()
	return nil
}

// URL is the run's DevTools HTTP endpoint (http://127.0.0.1:PORT): /json/version and the browser
// WebSocket, what Playwright's connectOverCDP takes, and /json/list and /json/new for the run's own
// pages (without a page WebSocket: a client drives a page through the browser WebSocket's sessions).
func (r *SharedRun) URL() string { return r.url }

// tab is one entry of DevTools' HTTP /json/list and /json/new answers.
type tab struct {
	ID    string `json:"id"`
	Type  string `json:"type"`
	Title string `json:"title"`
	URL   string `json:"url"`
}

// list answers /json/list with the targets of the run's contexts only (pages, workers, an extension's
// service worker in a whole browser).
func (r *SharedRun) list(w http.ResponseWriter, req *http.Request) {
	ts, err := r.s.targets(req.Context())
	if err != nil {
		http.Error(w, "trapline shared browser: list targets: "+err.Error(), http.StatusBadGateway)
		return
	}
	out := []tab{}
	for _, t := range ts {
		if t.Type != "browser" && t.Type != "browser_ui" && r.owns(t.BrowserContextID) {
			out = append(out, tab{ID: t.TargetID, Type: t.Type, Title: t.Title, URL: t.URL})
		}
	}
	w.Header().Set("Content-Type", "application/json")
	enc := json.NewEncoder(w)
	enc.SetIndent("", "   ") // as Chromium writes it: scripts match `"url": "...`
	_ = enc.Encode(out)
}

// newTab answers /json/new?URL (PUT, as Chromium wants it since version 111) with a page opened in
// the run's own context.
func (r *SharedRun) newTab(w http.ResponseWriter, req *http.Request) {
	if req.Method != http.MethodPut {
		http.Error(w, "Using unsafe HTTP verb GET to invoke /json/new. This action supports only PUT verb.", http.StatusMethodNotAllowed)
		return
	}
	u := req.URL.RawQuery
	if u == "" {
		u = "about:blank"
	}
	params := map[string]any{"url": u}
	if ctxID := r.ownContext(); ctxID != "" {
		params["browserContextId"] = ctxID
	}
	var created struct {
		TargetID string `json:"targetId"`
	}
	if err := r.s.call(req.Context(), "Target.createTarget", params, &created); err != nil {
		http.Error(w, "trapline shared browser: open a page: "+err.Error(), http.StatusBadGateway)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(tab{ID: created.TargetID, Type: "page", URL: u})
}

func (r *SharedRun) version(w http.ResponseWriter, req *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(map[string]string{"Browser": r.s.product, "Protocol-Version": "1.3",
		"webSocketDebuggerUrl": "ws://" + r.ln.Addr().String() + r.wsPath})
}

// frontConn is one agent connection: its sessionless calls go to a browser session of its own.
type frontConn struct {
	r       *SharedRun
	ws      *websocket.Conn
	session string
	sendMu  sync.Mutex
	once    sync.Once

	mu       sync.Mutex
	capture  map[string]bool // session/id of its Target.createBrowserContext calls
	browsers []string        // browser sessions it opened (Target.attachToBrowserTarget), filtered like its own
}

func (r *SharedRun) serve(ws *websocket.Conn) {
	ws.MaxPayloadBytes = 256 << 20
	c := &frontConn{r: r, ws: ws, capture: map[string]bool{}}
	defer c.close()
	var attached struct {
		SessionID string `json:"sessionId"`
	}
	if err := r.s.call(context.Background(), "Target.attachToBrowserTarget", nil, &attached); err != nil {
		return
	}
	c.session = attached.SessionID
	r.mu.Lock()
	if r.closed {
		r.mu.Unlock()
		return
	}
	r.conns = append(r.conns, c)
	r.mu.Unlock()
	r.s.mu.Lock()
	r.s.routes[c.session] = c
	r.s.mu.Unlock()
	for {
		var raw []byte
		if err := websocket.Message.Receive(ws, &raw); err != nil {
			return
		}
		var m cdpMessage
		if err := json.Unmarshal(raw, &m); err != nil {
			return
		}
		if !c.fromAgent(m) {
			return
		}
	}
}

// fromAgent filters and forwards one of the agent's messages; false ends the connection. A message
// without a session, or on a browser session the agent opened, is a browser-level call: filtered. One
// on a target's session (a page, a worker of the run) goes as it is.
func (c *frontConn) fromAgent(m cdpMessage) bool {
	s := c.r.s
	session := m.SessionID
	if session != "" {
		s.mu.Lock()
		owner := s.routes[session]
		s.mu.Unlock()
		if owner != c || session == c.session {
			return c.reply(m.ID, session, nil, "trapline: unknown session")
		}
		if !c.isBrowserSession(session) {
			d := cdpfilter.TargetCall(m.Method, m.Params, runScope{c.r})
			if d.Action == cdpfilter.Refuse {
				return c.reply(m.ID, session, nil, d.Refusal)
			}
			m.Params = d.Params
			return s.write(m) == nil
		}
	}
	if m.Method == "Target.attachToBrowserTarget" {
		// Another browser session, for the agent: filtered like its first.
		var attached struct {
			SessionID string `json:"sessionId"`
		}
		if err := s.call(context.Background(), "Target.attachToBrowserTarget", nil, &attached); err != nil {
			return c.reply(m.ID, session, nil, "trapline: "+err.Error())
		}
		c.mu.Lock()
		c.browsers = append(c.browsers, attached.SessionID)
		c.mu.Unlock()
		s.mu.Lock()
		s.routes[attached.SessionID] = c
		s.mu.Unlock()
		b, _ := json.Marshal(attached)
		return c.reply(m.ID, session, b, "")
	}
	d := cdpfilter.BrowserCall(m.Method, m.Params, runScope{c.r})
	if d.Action == cdpfilter.Refuse {
		return c.reply(m.ID, session, nil, d.Refusal)
	}
	if d.Action == cdpfilter.Close {
		// The browser is trapline's: the agent's close ends its connection, not the browser.
		c.reply(m.ID, session, json.RawMessage("{}"), "")
		return false
	}
	if session == "" {
		session = c.session
	}
	if m.Method == "Target.createBrowserContext" {
		c.mu.Lock()
		c.capture[fmt.Sprint(session, "/", m.ID)] = true
		c.mu.Unlock()
	}
	m.Params = d.Params
	m.SessionID = session
	return s.write(m) == nil
}

func (c *frontConn) isBrowserSession(id string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Contains(c.browsers, id)
}

// fromBrowser passes a message of one of c's sessions to the agent, noting the contexts it created.
func (c *frontConn) fromBrowser(m cdpMessage) {
	if m.Method == "" && (m.SessionID == c.session || c.isBrowserSession(m.SessionID)) {
		key := fmt.Sprint(m.SessionID, "/", m.ID)
		c.mu.Lock()
		capture := c.capture[key]
		delete(c.capture, key)
		c.mu.Unlock()
		if capture && m.Error == nil {
			var created struct {
				BrowserContextID string `json:"browserContextId"`
			}
			if json.Unmarshal(m.Result, &created) == nil && created.BrowserContextID != "" {
				c.r.mu.Lock()
				c.r.contexts = append(c.r.contexts, created.BrowserContextID)
				c.r.mu.Unlock()
				// Its downloads go to the run's folder too (the browser reports them to trapline's
				// session whatever the folder: this keeps the files where the disk observer looks).
				// Not here: this is the pipe's reader, which the call's answer needs.
				go c.r.downloadsInto(created.BrowserContextID)
			}
		}
	}
	if m.SessionID == c.session {
		m.SessionID = ""
	}
	c.send(m)
}

func (c *frontConn) send(m cdpMessage) bool {
	b, err := json.Marshal(m)
	if err != nil {
		return false
	}
	c.sendMu.Lock()
	defer c.sendMu.Unlock()
	return websocket.Message.Send(c.ws, string(b)) == nil
}

func (c *frontConn) reply(id int64, session string, result json.RawMessage, refusal string) bool {
	m := cdpMessage{ID: id, SessionID: session, Result: result}
	if refusal != "" {
		m.Result = nil
		m.Error = &cdpError{Code: -32000, Message: refusal}
	}
	return c.send(m)
}

func (c *frontConn) close() {
	c.once.Do(func() {
		_ = c.ws.Close()
		if c.session == "" {
			return
		}
		s := c.r.s
		s.mu.Lock()
		for id, owner := range s.routes {
			if owner == c {
				delete(s.routes, id)
			}
		}
		s.mu.Unlock()
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		c.mu.Lock()
		sessions := append([]string{c.session}, c.browsers...)
		c.mu.Unlock()
		for _, id := range sessions {
			_ = s.call(ctx, "Target.detachFromTarget", map[string]string{"sessionId": id}, nil)
		}
	})
}

// runScope is what the run owns, for the filter's table (cdpfilter.Run).
type runScope struct{ r *SharedRun }

func (x runScope) Context() string            { return x.r.ownContext() }
func (x runScope) Whole() bool                { return x.r.whole }
func (x runScope) OwnsContext(id string) bool { return x.r.owns(id) }
func (x runScope) OwnsTarget(id string) bool  { return x.r.ownsTarget(id) }
func (x runScope) ProxyURL() string           { return x.r.proxyURL }
func (x runScope) DownloadsDir() string       { return x.r.downloads }

// downloadsInto points the context ctxID's downloads at the run's folder, reported to trapline's
// session.
func (r *SharedRun) downloadsInto(ctxID string) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_ = r.s.call(ctx, "Browser.setDownloadBehavior", map[string]any{"behavior": "allow", "browserContextId": ctxID, "downloadPath": r.downloads, "eventsEnabled": true}, nil)
}

// Downloads are the downloads the browser began while the run was open, as the browser reported
// them on trapline's own session (Download): complete once Close returned.
func (r *SharedRun) Downloads() []Download { return r.seen.all() }

// ownContext is the context a call that names none goes to: the run's own, or "" (the browser's
// default context) in a whole browser.
func (r *SharedRun) ownContext() string {
	if r.whole {
		return ""
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.contexts[0]
}

func (r *SharedRun) owns(ctxID string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Contains(r.contexts, ctxID)
}

func (r *SharedRun) ownsTarget(id string) bool {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	var info struct {
		TargetInfo targetInfo `json:"targetInfo"`
	}
	if err := r.s.call(ctx, "Target.getTargetInfo", map[string]string{"targetId": id}, &info); err != nil {
		return false
	}
	return info.TargetInfo.Type != "browser" && r.owns(info.TargetInfo.BrowserContextID)
}

// Close ends the run: the endpoint closes, the agent's connections are cut, every context of the run
// is disposed, and the browser is checked to hold no context and no page of any run. A browser that
// fails the check serves no further run (the error says why).
func (r *SharedRun) Close() error {
	r.closeOnce.Do(func() {
		r.mu.Lock()
		r.closed = true
		conns := r.conns
		r.mu.Unlock()
		if r.srv != nil {
			_ = r.srv.Close()
		}
		for _, c := range conns {
			c.close()
		}
		s := r.s
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		r.mu.Lock()
		contexts := slices.Clone(r.contexts)
		r.mu.Unlock()
		if r.whole && len(contexts) > 0 {
			contexts = contexts[1:] // the default context: the browser goes with the run
		}
		for _, id := range contexts {
			_ = s.call(ctx, "Target.disposeBrowserContext", map[string]string{"browserContextId": id}, nil)
		}
		if !r.whole {
			r.closeErr = s.checkEmpty(ctx)
		}
		s.mu.Lock()
		if r.closeErr != nil && s.broken == nil {
			s.broken = r.closeErr
		}
		if s.run == r {
			s.run = nil
		}
		s.mu.Unlock()
	})
	return r.closeErr
}

// checkEmpty fails unless the browser holds no browser context but the default one and no target
// that could carry a run's state. A disposed context's service and shared workers are torn down after
// disposeBrowserContext answers, so targets get until ctx ends to go (polled: the protocol has no
// event for "the last one went" on a session that does not discover targets).
func (s *SharedCDP) checkEmpty(ctx context.Context) error {
	var bc struct {
		BrowserContextIDs []string `json:"browserContextIds"`
	}
	if err := s.call(ctx, "Target.getBrowserContexts", nil, &bc); err != nil {
		return fmt.Errorf("browser: shared chromium after a run: %w", err)
	}
	if len(bc.BrowserContextIDs) > 0 {
		return fmt.Errorf("browser: shared chromium after a run: %d browser contexts left", len(bc.BrowserContextIDs))
	}
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	for {
		ts, err := s.targets(ctx)
		if err != nil {
			return fmt.Errorf("browser: shared chromium after a run: %w", err)
		}
		var left *targetInfo
		for i, t := range ts {
			if t.Type != "browser" {
				left = &ts[i]
				break
			}
		}
		if left == nil {
			return nil
		}
		select {
		case <-tick.C:
		case <-ctx.Done():
			return fmt.Errorf("browser: shared chromium after a run: a %s target is left (%s)", left.Type, left.URL)
		}
	}
}

// Close kills the browser's process group, closes the sink and removes the profile. Safe to call
// more than once.
func (s *SharedCDP) Close() error {
	s.closeOnce.Do(func() {
		_ = s.toBrowser.Close()
		if err := syscall.Kill(-s.cmd.Process.Pid, syscall.SIGKILL); err != nil && !errors.Is(err, syscall.ESRCH) {
			s.closeErr = fmt.Errorf("browser: kill chromium: %w", err)
		}
		<-s.exited
		if s.sink != nil {
			s.closeErr = errors.Join(s.closeErr, s.sink.Close())
		}
		if err := os.RemoveAll(s.profile); err != nil {
			s.closeErr = errors.Join(s.closeErr, fmt.Errorf("browser: remove profile: %w", err))
		}
	})
	return s.closeErr
}

// cdpCookies are Playwright storage-state cookies as CDP's Storage.setCookies takes them (a
// session cookie, expires <= 0, without an expiry).
func cdpCookies(cs []playwright.OptionalCookie) []map[string]any {
	out := make([]map[string]any, 0, len(cs))
	for _, c := range cs {
		m := map[string]any{"name": c.Name, "value": c.Value}
		for k, v := range map[string]*string{"url": c.URL, "domain": c.Domain, "path": c.Path} {
			if v != nil {
				m[k] = *v
			}
		}
		if c.Expires != nil && *c.Expires > 0 {
			m["expires"] = *c.Expires
		}
		if c.HttpOnly != nil {
			m["httpOnly"] = *c.HttpOnly
		}
		if c.Secure != nil {
			m["secure"] = *c.Secure
		}
		if c.SameSite != nil {
			m["sameSite"] = string(*c.SameSite)
		}
		out = append(out, m)
	}
	return out
}
