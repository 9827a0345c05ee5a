package proxy

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"net/http"
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
	p := &Proxy{opts: opts, rec: newRecorder(opts.log), conns: newConnSet(), done: make(chan struct{})}
	p.tlsConfig = goproxy.TLSConfigFromCA(&opts.ca.cert)

	d := dialer{hosts: opts.hosts, conns: p.conns, roots: opts.roots}
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
	p.ln = ln
	p.srv = &http.Server{
		Handler:           px,
		ReadHeaderTimeout: 30 * time.Second,
		ErrorLog:          opts.errorLog,
	}
	go func() {
		defer close(p.done)
		_ = p.srv.Serve(trackingListener{Listener: ln, set: p.conns})
	}()
	return p, nil
}

// Addr returns the host:port the proxy listens on.
func (p *Proxy) Addr() string { return p.ln.Addr().String() }

// URL returns the proxy URL to give clients, "http://127.0.0.1:PORT".
func (p *Proxy) URL() string { return "http://" + p.Addr() }

// CA returns the CA the proxy signs its interception certificates with (Config.CA, or the one Start
// made).
func (p *Proxy) CA() *CA { return p.opts.ca }

// Decisions returns a copy of the decisions made so far, in the order they were made.
func (p *Proxy) Decisions() []Decision { return p.rec.decisions() }

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
