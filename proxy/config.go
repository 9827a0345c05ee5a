package proxy

import (
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"net/netip"
	"strings"
	"time"

	"github.com/trapline/trapline/agentkit/policy"
)

// Rules decides on requests; *policy.Policy implements it.
//
// The proxy asks DecideRequest about every plain HTTP request and DecideHost about every CONNECT
// tunnel. A method that panics is treated as a deny with rule RuleRulesPanic: the proxy fails closed.
type Rules interface {
	DecideRequest(policy.Request) policy.Decision
	DecideHost(host string) policy.Decision
}

var _ Rules = (*policy.Policy)(nil)

// DefaultListen is the address the proxy listens on when Config.Listen is empty.
const DefaultListen = "127.0.0.1:0"

// Defaults of Config's resource bounds.
const (
	// DefaultKeepDecisions is Config.KeepDecisions' default: about 4 MB of decisions.
	DefaultKeepDecisions = 10000
	// DefaultBodyTimeout is Config.BodyTimeout's default.
	DefaultBodyTimeout = 30 * time.Second
)

// Config configures a Proxy. The zero value is valid: it listens on DefaultListen and denies
// everything.
type Config struct {
	// Rules decides on each request. Nil denies everything with rule RuleDefaultDeny, which makes
	// the proxy a sink for browser-internal traffic.
	Rules Rules

	// Hosts maps a destination to the only address the proxy will dial for it. A key is a host name
	// or IP ("portale.interno.test") or a host:port ("portale.interno.test:8080"); a key without a
	// port matches port 80, and also port 443 for CONNECT. A value must be a literal IP:port
	// ("127.0.0.1:41234"): the proxy never resolves a name. A destination that is not mapped is
	// refused with rule RuleUnmappedHost, whatever Rules says. A value "https://IP:PORT" is an
	// upstream that speaks TLS (a user's HTTPS staging app): the proxy dials it with TLS, verifying
	// its certificate for that IP against UpstreamRoots.
	Hosts map[string]string

	// CA signs the certificates the proxy shows inside a CONNECT tunnel, where it terminates TLS to
	// judge every request as it judges plain HTTP (see mitm.go). Nil makes a fresh one
	// (DefaultCALifetime); Proxy.CA returns it. Give the same CA to every world a browser serves,
	// and make that browser trust it alone.
	CA *CA

	// UpstreamRoots verifies the https:// targets of Hosts; nil means the system roots. Put a
	// self-signed staging app's own certificate (or its CA) here.
	UpstreamRoots *x509.CertPool

	// Listen is the TCP address to listen on. Empty means DefaultListen.
	// Listen is the TCP address to listen on. Empty means DefaultListen. It must be a loopback
	// address (127.0.0.0/8, ::1 or "localhost") unless AllowNonLoopback is set: a proxy on every
	// interface is an open proxy into the staging world for anyone who reaches the port.
	Listen string

	// AllowNonLoopback lets Listen be any address (":8080", "0.0.0.0:8080"): a proxy in a
	// container, whose port the engine publishes, needs it. Say so on purpose.
	AllowNonLoopback bool

	// WorldToken, when set, is put in the WorldTokenHeader of every request the proxy lets through to
	// a mapped host (any copy the client sent is dropped first): the world's listeners answer only
	// requests that carry it, so a direct dial around the proxy is refused and recorded
	// (fixtures.Admission). Empty adds nothing.
	WorldToken string

	// Log, if set, receives one JSON line (a Decision) per decision, in the order they were made.
	// A write error does not stop the proxy; Close reports the first one.
	Log io.Writer

	// ErrorLog, if set, receives goproxy's warnings (for example a failed upstream dial) and the
	// HTTP server's errors. Nil discards them.
	ErrorLog *log.Logger

	// KeepDecisions is how many of the latest decisions Proxy.Decisions keeps in memory. 0 means
	// DefaultKeepDecisions; a negative value keeps none. Every decision goes to Log regardless.
	KeepDecisions int

	// BodyTimeout bounds how long the proxy waits for the part of a request body it judges (up to
	// the rules' body limit). A body that does not arrive in time (a client sending one byte every
	// few seconds) is refused with rule body_unreadable and the connection closed. 0 means
	// DefaultBodyTimeout.
	BodyTimeout time.Duration

	// HealthPath, when set (e.g. "/healthz"), makes a direct (non-proxy) GET of exactly that path
	// answer 200 "ok" without a decision: a readiness check for a proxy in a container, where a
	// client outside must learn that the listener serves. Every other direct request is still
	// refused and logged as not_a_proxy_request.
	HealthPath string
}

// ErrConfig is the family of the errors Start returns for an invalid Config; match it with
// errors.Is.
var ErrConfig = errors.New("invalid proxy config")

// options is a validated Config with its defaults applied.
type options struct {
	rules    Rules
	hosts    hostMap
	listen   string
	log      io.Writer
	errorLog *log.Logger
	health   string
	ca       *CA
	roots    *x509.CertPool
	keep     int
	bodyWait time.Duration
	token    string
}

// newOptions applies the defaults to cfg and validates it.
func newOptions(cfg Config) (options, error) {
	o := options{
		rules:    cfg.Rules,
		listen:   cfg.Listen,
		log:      cfg.Log,
		errorLog: cfg.ErrorLog,
		health:   cfg.HealthPath,
		ca:       cfg.CA,
		roots:    cfg.UpstreamRoots,
		keep:     cfg.KeepDecisions,
		bodyWait: cfg.BodyTimeout,
		token:    cfg.WorldToken,
	}
	if o.keep == 0 {
		o.keep = DefaultKeepDecisions
	}
	if o.bodyWait <= 0 {
		o.bodyWait = DefaultBodyTimeout
	}
	if o.rules == nil {
		o.rules = denyAll{}
	}
	if o.listen == "" {
		o.listen = DefaultListen
	}
	if !cfg.AllowNonLoopback {
		if err := checkLoopback(o.listen); err != nil {
			return options{}, fmt.Errorf("%w: %w", ErrConfig, err)
		}
	}
	if o.errorLog == nil {
		o.errorLog = log.New(io.Discard, "", 0)
	}
	hosts, err := newHostMap(cfg.Hosts)
	if err != nil {
		return options{}, fmt.Errorf("%w: %w", ErrConfig, err)
	}
	o.hosts = hosts
	if o.ca == nil {
		if o.ca, err = NewCA(DefaultCALifetime); err != nil {
			return options{}, err
		}
	}
	return o, nil
}

// checkLoopback refuses a listen address whose host is not a loopback IP or "localhost".
func checkLoopback(listen string) error {
	host, _, err := net.SplitHostPort(listen)
	if err != nil {
		return fmt.Errorf("listen %q: %w", listen, err)
	}
	if ip, err := netip.ParseAddr(host); err == nil && ip.Unmap().IsLoopback() || strings.EqualFold(host, "localhost") {
		return nil
	}
	what := fmt.Sprintf("%q is not a loopback address", host)
	if host == "" {
		what = "an empty host listens on every interface"
	}
	return fmt.Errorf("listen %q: %s: the proxy would be open to every host that can reach it; allow that on purpose (trapline proxy --allow-non-loopback; proxy.Config.AllowNonLoopback)", listen, what)
}

// denyAll is the Rules used when Config.Rules is nil.
type denyAll struct{}

func (denyAll) DecideRequest(policy.Request) policy.Decision { return defaultDeny() }
func (denyAll) DecideHost(string) policy.Decision            { return defaultDeny() }

func defaultDeny() policy.Decision {
	return policy.Decision{Rule: RuleDefaultDeny, Reason: "the proxy has no rules: everything is denied"}
}
