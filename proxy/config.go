package proxy

import (
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"log"

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
	Listen string

	// Log, if set, receives one JSON line (a Decision) per decision, in the order they were made.
	// A write error does not stop the proxy; Close reports the first one.
	Log io.Writer

	// ErrorLog, if set, receives goproxy's warnings (for example a failed upstream dial) and the
	// HTTP server's errors. Nil discards them.
	ErrorLog *log.Logger

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
	}
	if o.rules == nil {
		o.rules = denyAll{}
	}
	if o.listen == "" {
		o.listen = DefaultListen
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

// denyAll is the Rules used when Config.Rules is nil.
type denyAll struct{}

func (denyAll) DecideRequest(policy.Request) policy.Decision { return defaultDeny() }
func (denyAll) DecideHost(string) policy.Decision            { return defaultDeny() }

func defaultDeny() policy.Decision {
	return policy.Decision{Rule: RuleDefaultDeny, Reason: "the proxy has no rules: everything is denied"}
}
