package proxy

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"sync"
	"time"

	"github.com/elazarl/goproxy"
)

// closeTimeout bounds how long Close waits for in-flight plain HTTP requests.
const closeTimeout = 5 * time.Second

// Proxy is a running egress proxy. Start one with Start and stop it with Close.
type Proxy struct {
	opts      options
	rec       *recorder
	tlsConfig func(host string, ctx *goproxy.ProxyCtx) (*tls.Config, error)
	conns     *connSet
	doors     *doorSet // the DevTools doors (AdmitDevTools); doorSeq is guarded by doors.mu
	doorSeq   uint64
	tr        *http.Transport
	ln        net.Listener
	srv       *http.Server
	done      chan struct{} // closed when srv.Serve has returned

	closeOnce sync.Once
	closeErr  error
}

// Start validates cfg, listens on cfg.Listen and serves the proxy until Close.
//
// The proxy dials nothing but the literal addresses in cfg.Hosts: environment proxy settings are
// ignored and names are never resolved.
func Start(cfg Config) (*Proxy, error) {
	opts, err := newOptions(cfg)
	if err != nil {
		return nil, fmt.Errorf("start proxy: %w", err)
	}
	p := &Proxy{opts: opts, rec: newRecorder(opts.log, opts.keep), conns: newConnSet(), doors: &doorSet{}, done: make(chan struct{})}
	p.tlsConfig = goproxy.TLSConfigFromCA(&opts.ca.cert)

	d := dialer{hosts: opts.hosts, doors: p.doors, conns: p.conns, roots: opts.roots}
	p.tr = &http.Transport{
		Proxy:                 nil, // never chain out through HTTP_PROXY and friends
		DialContext:           d.DialContext,
		DialTLSContext:        d.DialTLSContext,
		MaxIdleConnsPerHost:   16,
		IdleConnTimeout:       30 * time.Second,
		ResponseHeaderTimeout: time.Minute,
		ExpectContinueTimeout: time.Second,
	}
	px := goproxy.NewProxyHttpServer()
	px.Logger = opts.errorLog
	px.Tr = p.tr
	px.ConnectDial = nil // NewProxyHttpServer sets it from HTTPS_PROXY
	px.ConnectDialWithReq = func(_ *http.Request, _, addr string) (net.Conn, error) {
		// Every allowed CONNECT is intercepted (mitm.go); a blind tunnel is never dialled.
		return nil, fmt.Errorf("trapline proxy: blind tunnel to %s refused", addr)
	}
	px.CertStore = &certCache{}
	px.NonproxyHandler = http.HandlerFunc(p.nonProxy)
	px.OnRequest().HandleConnectFunc(p.onConnect)
	px.OnRequest().DoFunc(p.onRequest)
	px.OnResponse().DoFunc(p.onResponse)

	ln, err := net.Listen("tcp", opts.listen)
	if err != nil {
		return nil, fmt.Errorf("start proxy: listen %s: %w", opts.listen, err)
	}
	if !cfg.AllowNonLoopback {
		// "localhost" is resolved by Listen: check what was bound, not what was asked.
		if ap, err := netip.ParseAddrPort(ln.Addr().String()); err != nil || !ap.Addr().Unmap().IsLoopback() {
			_ = ln.Close()
			return nil, fmt.Errorf("start proxy: %w: listen %s bound %s, not a loopback address", ErrConfig, opts.listen, ln.Addr())
		}
	}
	p.ln = ln
	p.srv = &http.Server{
		Handler:           p.serve(px),
		ReadHeaderTimeout: 30 * time.Second,
		ErrorLog:          opts.errorLog,
		ConnState:         p.connState,
		ConnContext: func(ctx context.Context, c net.Conn) context.Context {
			return context.WithValue(context.WithValue(ctx, connWatchKey{}, watchOf(c)), clientConnKey{}, c)
		},
	}
	go func() {
		defer close(p.done)
		_ = p.srv.Serve(trackingListener{Listener: ln, set: p.conns})
	}()
	return p, nil
}

// Addr returns the host:port the proxy listens on.
func (p *Proxy) Addr() string { return p.ln.Addr().String() }

// URL returns the proxy URL to give clients, "http://127.0.0.1:PORT". For a proxy listening on
// every interface (AllowNonLoopback with ":PORT", "0.0.0.0" or "::"; Go listens on both families
// then), whose address no client can dial, it names 127.0.0.1; ClientURLs lists the others.
func (p *Proxy) URL() string {
	ap, err := netip.ParseAddrPort(p.Addr())
	if err != nil || !ap.Addr().IsUnspecified() {
		return "http://" + p.Addr()
	}
	return "http://" + netip.AddrPortFrom(netip.AddrFrom4([4]byte{127, 0, 0, 1}), ap.Port()).String()
}

// CA returns the CA the proxy signs its interception certificates with (Config.CA, or the one Start
// made).
func (p *Proxy) CA() *CA { return p.opts.ca }

// ClientURLs returns URL first, then, for a proxy listening on every interface, one proxy URL per
// address of this machine's interfaces (loopback and link-local left out), which other hosts may
// dial.
func (p *Proxy) ClientURLs() []string {
	out := []string{p.URL()}
	ap, err := netip.ParseAddrPort(p.Addr())
	if err != nil || !ap.Addr().IsUnspecified() {
		return out
	}
	addrs, err := net.InterfaceAddrs()
	if err != nil {
		return out
	}
	for _, a := range addrs {
		pfx, err := netip.ParsePrefix(a.String())
		if err != nil || pfx.Addr().IsLoopback() || pfx.Addr().IsLinkLocalUnicast() {
			continue
		}
		out = append(out, "http://"+netip.AddrPortFrom(pfx.Addr(), ap.Port()).String())
	}
	return out
}

// Decisions returns a copy of the decisions kept in memory, in the order they were made: all of
// them until Config.KeepDecisions were made, then the latest KeepDecisions. DecisionsDropped says
// how many earlier ones only Config.Log holds; a caller that needs every decision reads the log.
func (p *Proxy) Decisions() []Decision { d, _ := p.rec.decisions(); return d }

// DecisionsDropped returns how many decisions are no longer kept in memory (Decisions lacks them;
// Config.Log has them).
func (p *Proxy) DecisionsDropped() int { return p.rec.droppedCount() }

// LogError returns the first error writing Config.Log, if any: the log then lacks decisions.
func (p *Proxy) LogError() error { return p.rec.err() }

// Close stops listening, waits up to five seconds for in-flight plain HTTP requests, then cuts
// every remaining connection, open tunnels and WebSockets included. It returns the first error
// writing Config.Log, if any. Calling it again returns the same result.
func (p *Proxy) Close() error {
	p.closeOnce.Do(func() {
		ctx, cancel := context.WithTimeout(context.Background(), closeTimeout)
		defer cancel()
		var errs []error
		if err := p.srv.Shutdown(ctx); err != nil {
			errs = append(errs, fmt.Errorf("close proxy: shutdown: %w", err))
			_ = p.srv.Close()
		}
		<-p.done
		p.conns.closeAll()
		p.tr.CloseIdleConnections()
		if err := p.rec.err(); err != nil {
			errs = append(errs, fmt.Errorf("close proxy: %w", err))
		}
		p.closeErr = errors.Join(errs...)
	})
	return p.closeErr
}
