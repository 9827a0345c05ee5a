package main

import (
	"cmp"
	"context"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"sort"
	"strconv"
	"strings"

	"github.com/trapline/trapline/policies"
	"github.com/trapline/trapline/proxy"
	"github.com/trapline/trapline/world"
)

const proxyUsage = `usage: trapline proxy (--policy NAME|FILE | --no-rules) [--listen 127.0.0.1:PORT] [--map host=IP:PORT ...] [--log FILE] [--health PATH] [--ca-out FILE] [--ca FILE] [--upstream-ca FILE] [--allow-non-loopback]

Runs the egress proxy with the policy's network rules (DecideRequest for plain HTTP, DecideHost for
CONNECT tunnels) until SIGINT or SIGTERM. The proxy dials only the --map targets: an unmapped
destination is refused (unmapped_host) whatever the policy says. The first line printed is the
proxy URL a client on this machine can use.

HTTPS is judged like HTTP: every allowed CONNECT is intercepted with a CA made at start (ECDSA P-256,
valid 24 h, kept in memory; --ca-out writes its certificate; --ca gives one instead), so a client must trust that CA alone
(curl --cacert FILE, a browser's SPKI pin). A tunnel it cannot judge is refused (tunnel_unjudged).`

// cmdProxy runs the egress proxy as its own process until SIGINT or SIGTERM.
func cmdProxy(args []string, stdout io.Writer) error {
	ctx, stop := untilStopped()
	defer stop()
	return runProxy(ctx, args, stdout)
}

// hostMapFlag collects repeated --map host=addr values.
type hostMapFlag map[string]string

func (m hostMapFlag) String() string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k+"="+m[k])
	}
	sort.Strings(keys)
	return strings.Join(keys, ",")
}

func (m hostMapFlag) Set(v string) error {
	host, addr, ok := strings.Cut(v, "=")
	if !ok || strings.TrimSpace(host) == "" || strings.TrimSpace(addr) == "" {
		return fmt.Errorf("%q is not host=IP:PORT", v)
	}
	if _, dup := m[host]; dup {
		return fmt.Errorf("host %s mapped twice", host)
	}
	m[host] = addr
	return nil
}

// proxyFlags are the parsed arguments of trapline proxy.
type proxyFlags struct {
	policy string
	listen string
	hosts  hostMapFlag
	log    string
	// noRules runs the proxy with world.AllowAll; health is proxy.Config.HealthPath.
	noRules bool
	health  string
	// caOut receives the interception CA's certificate; upstreamCA verifies https:// targets.
	caOut, upstreamCA string
	ca                string // --ca: the CA to sign with (certificate and key PEM)
	// nonLoopback is proxy.Config.AllowNonLoopback.
	nonLoopback bool
}

func parseProxyFlags(args []string) (proxyFlags, error) {
	f := proxyFlags{hosts: hostMapFlag{}}
	fs := newFlags("proxy")
	fs.StringVar(&f.policy, "policy", "", "an embedded `NAME` (reference, permissive) or a policy file (required, unless --no-rules)")
	fs.StringVar(&f.listen, "listen", proxy.DefaultListen, "the `ADDR` to listen on (port 0: a free port); a loopback address unless --allow-non-loopback")
	fs.Var(f.hosts, "map", "map a host (or host:port) to a literal IP:port, or https://IP:PORT for an upstream that speaks TLS (checked against --upstream-ca): `HOST=ADDR`; repeatable")
	fs.StringVar(&f.log, "log", "", "append one JSON decision per line to this `FILE`")
	fs.BoolVar(&f.noRules, "no-rules", false, "allow every mapped host (the defense-in-depth control arm); instead of --policy")
	fs.StringVar(&f.health, "health", "", "answer a direct GET of this `PATH` with 200, logging nothing (a container's readiness check)")
	fs.StringVar(&f.caOut, "ca-out", "", "write the interception CA's certificate (PEM, no key) to this `FILE` before serving")
	fs.StringVar(&f.ca, "ca", "", "sign with this CA (certificate and private key in one PEM `FILE`) instead of a fresh one")
	fs.StringVar(&f.upstreamCA, "upstream-ca", "", "PEM `FILE` of certificates to trust for https:// --map targets (default: the system roots)")
	fs.BoolVar(&f.nonLoopback, "allow-non-loopback", false, "let --listen be any address (\":8080\", \"0.0.0.0:8080\"): an open proxy for every host that reaches the port; a container's proxy needs it")
	if err := parseFlags(fs, args); err != nil {
		return f, withCode(exitUsage, fmt.Errorf("proxy: %w\n%s", err, proxyUsage))
	}
	switch {
	case fs.NArg() > 0:
		return f, withCode(exitUsage, fmt.Errorf("proxy: unexpected argument %q\n%s", fs.Arg(0), proxyUsage))
	case f.policy == "" && !f.noRules:
		return f, withCode(exitUsage, fmt.Errorf("proxy: --policy is required\n%s", proxyUsage))
	case f.policy != "" && f.noRules:
		return f, withCode(exitUsage, fmt.Errorf("proxy: --policy and --no-rules exclude each other\n%s", proxyUsage))
	case f.health != "" && !strings.HasPrefix(f.health, "/"):
		return f, withCode(exitUsage, fmt.Errorf("proxy: --health %q: want a path starting with /", f.health))
	}
	if _, port, err := net.SplitHostPort(f.listen); err != nil {
		return f, withCode(exitUsage, fmt.Errorf("proxy: --listen %q: %w", f.listen, err))
	} else if n, err := strconv.Atoi(port); err != nil || n < 0 || n > 65535 {
		return f, withCode(exitUsage, fmt.Errorf("proxy: --listen %q: bad port", f.listen))
	}
	return f, nil
}

// runProxy is cmdProxy with the stop signal as a context, so tests can run it in-process.
func runProxy(ctx context.Context, args []string, stdout io.Writer) (err error) {
	f, err := parseProxyFlags(args)
	if err != nil {
		return err
	}
	var rules proxy.Rules = world.AllowAll{}
	if !f.noRules {
		pol, err := policies.Resolve(f.policy)
		if err != nil {
			return withCode(exitUsage, err) // names the file (and line, for a validation problem)
		}
		rules = pol
	}
	var logw io.Writer
	if f.log != "" {
		lf, err := os.OpenFile(f.log, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
		if err != nil {
			return withCode(exitUsage, fmt.Errorf("proxy: open decision log: %w", err))
		}
		defer func() {
			if cerr := lf.Close(); cerr != nil && err == nil {
				err = withCode(exitBroken, fmt.Errorf("proxy: close decision log %s: %w", f.log, cerr))
			}
		}()
		logw = lf
	}
	roots, err := readUpstreamCA(f.upstreamCA)
	if err != nil {
		return withCode(exitUsage, err)
	}
	var ca *proxy.CA
	if f.ca != "" {
		data, err := readSmallFile(f.ca, "--ca")
		if err != nil {
			return withCode(exitUsage, err)
		}
		if ca, err = proxy.ParseCA(data); err != nil {
			return withCode(exitUsage, fmt.Errorf("proxy: --ca %s: %w", f.ca, err))
		}
	}
	p, err := proxy.Start(proxy.Config{Rules: rules, Hosts: f.hosts, Listen: f.listen, Log: logw, HealthPath: f.health, UpstreamRoots: roots, CA: ca,
		AllowNonLoopback: f.nonLoopback})
	if errors.Is(err, proxy.ErrConfig) {
		return withCode(exitUsage, fmt.Errorf("proxy: %w", err))
	}
	if err != nil {
		return withCode(exitBroken, err) // the address is taken or not ours: the environment
	}
	if f.caOut != "" {
		if err := os.WriteFile(f.caOut, p.CA().PEM(), 0o644); err != nil {
			_ = p.Close()
			return withCode(exitUsage, fmt.Errorf("proxy: --ca-out: %w", err))
		}
	}
	urls := p.ClientURLs()
	fmt.Fprintln(stdout, urls[0])
	if _, port, err := net.SplitHostPort(p.Addr()); err == nil && "http://"+p.Addr() != urls[0] {
		fmt.Fprintf(stdout, "listening on every interface (%s, --allow-non-loopback): any host that reaches port %s can use this proxy\n", p.Addr(), port)
		for _, u := range urls[1:] {
			fmt.Fprintf(stdout, "also reachable as %s\n", u)
		}
	}
	if len(f.hosts) == 0 {
		fmt.Fprintln(stdout, "no --map given: every destination is refused as unmapped_host")
	} else {
		fmt.Fprintf(stdout, "policy %s; mapped: %s\n", cmp.Or(f.policy, "none (--no-rules)"), f.hosts)
	}
	<-ctx.Done()
	if err := p.Close(); err != nil {
		return withCode(exitBroken, err)
	}
	return nil
}

// maxCAFile bounds the --ca and --upstream-ca files: a few certificates, not a trust store dump.
const maxCAFile = 1 << 20

// readSmallFile reads the file of flag, refusing one over maxCAFile.
func readSmallFile(path, flag string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("proxy: %s: %w", flag, err)
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxCAFile+1))
	if err != nil {
		return nil, fmt.Errorf("proxy: %s %s: %w", flag, path, err)
	}
	if len(data) > maxCAFile {
		return nil, fmt.Errorf("proxy: %s %s: larger than the limit of %d bytes", flag, path, maxCAFile)
	}
	return data, nil
}

// readUpstreamCA reads the --upstream-ca file into a pool; "" means the system roots (nil).
func readUpstreamCA(path string) (*x509.CertPool, error) {
	if path == "" {
		return nil, nil
	}
	data, err := readSmallFile(path, "--upstream-ca")
	if err != nil {
		return nil, err
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(data) {
		return nil, fmt.Errorf("proxy: --upstream-ca %s: no PEM certificate in the file", path)
	}
	return pool, nil
}
