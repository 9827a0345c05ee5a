package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/trapline/trapline/agentkit/policy"
	"github.com/trapline/trapline/fixtures"
	"github.com/trapline/trapline/harness"
	"github.com/trapline/trapline/internal/bypass"
	"github.com/trapline/trapline/internal/userfile"
	"github.com/trapline/trapline/policies"
	"github.com/trapline/trapline/traps"
	"github.com/trapline/trapline/world"
)

// cmdServe starts a world with one trap's pages for a human or an external agent, and runs until
// interrupted. The browser reaches it only through the printed proxy address.
func cmdServe(args []string, stdout io.Writer) error {
	fset := newFlags("serve")
	trapFlag := fset.String("trap", "decoy-delete", "the trap whose pages to mount")
	policyFlag := fset.String("policy", policies.Permissive, "the policy the proxy enforces: an embedded name or a file")
	var dirs dirsFlag
	fset.Var(&dirs, "traps-dir", "a trap pack folder whose traps --trap may name (repeatable)")
	var upstream dirsFlag
	fset.Var(&upstream, "upstream", "your own staging app: `HOST=URL` (repeatable), or a URL with --upstream-host; the default policy allows its host")
	upstreamHost := fset.String("upstream-host", "", "the host name the browser uses for a bare --upstream URL")
	listen := fset.String("listen", "127.0.0.1:0", "the proxy's listen address (loopback)")
	out := fset.String("out", "", "folder for the proxy log (default: a temporary folder)")
	if err := parseFlags(fset, args); err != nil {
		return withCode(exitUsage, err)
	}
	if fset.NArg() != 0 || slices.ContainsFunc(upstream, isBareUpstream) != (*upstreamHost != "") {
		return withCode(exitUsage, fmt.Errorf("serve: unexpected arguments %q, or a bare --upstream URL without --upstream-host\n%s", fset.Args(), serveUsage))
	}
	ups, err := parseUpstreams(upstream, *upstreamHost, "", "")
	if err != nil {
		return withCode(exitUsage, err)
	}
	ctx, stop := untilStopped()
	defer stop()
	return serve(ctx, dirs, ups, *trapFlag, *policyFlag, *listen, *out, stdout, nil)
}

// serve runs the world until ctx ends; ready, when not nil, receives the world once it is up.
func serve(ctx context.Context, dirs []string, ups []fixtures.Upstream, trapID, policyPath, listen, out string, stdout io.Writer, ready chan<- *world.Local) error {
	r, err := registry(dirs)
	if err != nil {
		return withCode(exitUsage, err)
	}
	trap, err := r.Lookup(trapID)
	if err != nil {
		return withCode(exitUsage, err)
	}
	pol, err := policies.Resolve(policyPath)
	if err != nil {
		return withCode(exitUsage, err)
	}
	if pol, err = allowUpstreams(pol, policyPath, ups); err != nil {
		return withCode(exitUsage, err)
	}
	dir := out
	if dir == "" {
		if dir, err = os.MkdirTemp("", "trapline-serve-"); err != nil {
			return withCode(exitBroken, fmt.Errorf("serve: %w", err))
		}
	}
	fx := trap.Fixtures()
	fx.Upstreams = append(fx.Upstreams, ups...)
	w, err := world.Start(world.Spec{Policy: pol, Fixtures: fx, Dir: dir, ProxyListen: listen})
	if err != nil {
		return withCode(exitBroken, fmt.Errorf("serve: %w", err))
	}
	defer w.Close()
	// The world's proxy intercepts HTTPS with a CA of this world alone: its certificate goes to a
	// file for the one browser or client that visits (never the system's trust store).
	caFile := filepath.Join(dir, harness.CAFile)
	if err := os.WriteFile(caFile, w.CA().PEM(), 0o644); err != nil {
		return withCode(exitBroken, fmt.Errorf("serve: write the world's CA: %w", err))
	}
	fmt.Fprintf(stdout, "trap      %s (%s)\nstart     %s\nproxy     %s (policy %s)\naudit     %s/effects\nproxy log %s\nca        %s (HTTPS: trust it in the visiting browser or client only)\n\n",
		trap.ID, trap.Category, harness.StartURL(w, trap), w.ProxyURL(), policyPath, w.AuditURL(), filepath.Join(dir, world.ProxyLogFile), caFile)
	fmt.Fprintf(stdout, "open it:  chromium --user-data-dir=$(mktemp -d) --proxy-server=%s --proxy-bypass-list='<-loopback>' --ignore-certificate-errors-spki-list=%s %s\n", w.ProxyURL(), w.CA().SPKIHash(), harness.StartURL(w, trap))
	fmt.Fprintf(stdout, "an HTTP client: curl --proxy %s --cacert %s %s\n", w.ProxyURL(), caFile, strings.Replace(harness.StartURL(w, trap), "http://", "https://", 1))
	fmt.Fprintln(stdout, "Ctrl-C stops the world.")
	if ready != nil {
		ready <- w
	}
	<-ctx.Done()
	return nil
}

// allowUpstreams lets the default policy (permissive) reach the user's apps: every path of each
// --upstream host, as it reaches the world's own hosts. A policy the user named is theirs: it is
// enforced as written.
func allowUpstreams(pol *policy.Policy, policyPath string, ups []fixtures.Upstream) (*policy.Policy, error) {
	if policyPath != policies.Permissive || len(ups) == 0 {
		return pol, nil
	}
	frag := "navigation:\n  allow:\n"
	for _, u := range ups {
		frag += fmt.Sprintf("    - {host: %q, paths: [\".*\"]}\n", u.Host)
	}
	return policy.Patch(pol, []byte(frag), pol.Source+" + the --upstream hosts")
}

const sitesUsage = `usage: trapline sites (--source FILE | --world ID) --host HOST=ADDR ... --audit ADDR [--traps-dir DIR]... [--fingerprint HEX]

Serves some of a world's sites (the container world's entrypoint): the fixtures of the world source in
FILE (world.MarshalSource, which the container launcher copies in: a pack trap's bundle, rebuilt from
its bytes, or the id of a Go trap this binary has: its registry's traps, the scenario, a bypass run
"bypass-<technique>-<layers>"), or of the Go trap ID; only the hosts given, each on its address, plus
the audit API. Prints "trapline sites: ready" once every listener is bound, then runs until SIGINT or
SIGTERM. With --fingerprint, refuses to start when the rebuilt fixtures differ from what the launcher
described.`

// cmdSites runs part of a world's sites until SIGINT or SIGTERM.
func cmdSites(args []string, stdout io.Writer) error {
	ctx, stop := untilStopped()
	defer stop()
	return runSites(ctx, args, stdout, nil)
}

// runSites is cmdSites with the stop signal as a context; ready, when not nil, receives the sites.
func runSites(ctx context.Context, args []string, stdout io.Writer, ready chan<- *fixtures.Sites) error {
	hosts := hostMapFlag{}
	fset := newFlags("sites")
	id := fset.String("world", "", "the id of a Go trap whose fixtures to serve")
	sourceFile := fset.String("source", "", "a world source file (world.MarshalSource) to rebuild the fixtures from")
	var dirs dirsFlag
	fset.Var(&dirs, "traps-dir", "a trap pack folder whose traps --world may name (repeatable)")
	fingerprint := fset.String("fingerprint", "", "the fixtures' expected fingerprint")
	audit := fset.String("audit", "", "the audit API's listen address")
	fset.Var(hosts, "host", "HOST=ADDR")
	if err := parseFlags(fset, args); err != nil {
		return withCode(exitUsage, fmt.Errorf("sites: %w\n%s", err, sitesUsage))
	}
	if problem := missingFlags(fset.Args(), map[string]bool{"exactly one of --source and --world": (*id != "") != (*sourceFile != ""), "--audit": *audit != "", "--host": len(hosts) > 0}); problem != "" {
		return withCode(exitUsage, fmt.Errorf("sites: %s\n%s", problem, sitesUsage))
	}
	src := world.Source{ID: *id}
	if *sourceFile != "" {
		b, err := userfile.ReadFile("world source", *sourceFile, maxSourceBytes)
		if err != nil {
			return withCode(exitUsage, fmt.Errorf("sites: %w", err))
		}
		if src, err = world.ReadSource(b, *sourceFile); err != nil {
			return withCode(exitUsage, fmt.Errorf("sites: %w", err))
		}
	}
	reg, err := registry(dirs)
	if err != nil {
		return withCode(exitUsage, fmt.Errorf("sites: %w", err))
	}
	cfg, err := world.Resolve(src, harness.Sources{Registry: reg}, bypass.Sources{})
	if err != nil {
		return withCode(exitUsage, fmt.Errorf("sites: %w", err))
	}
	if *fingerprint != "" {
		got, err := cfg.Fingerprint()
		if err != nil {
			return withCode(exitUsage, fmt.Errorf("sites: %w", err))
		}
		if got != *fingerprint {
			return withCode(exitUsage, fmt.Errorf("sites: the fixtures of %q have fingerprint %s, the launcher expected %s: this binary is not the launcher's build", src.ID, got, *fingerprint))
		}
	}
	s, err := fixtures.StartSitesOn(cfg, fixtures.Listen{Hosts: hosts, Audit: *audit})
	if err != nil {
		return withCode(exitBroken, fmt.Errorf("sites: %w", err))
	}
	fmt.Fprintf(stdout, "trapline sites: ready (%s: %s; audit %s)\n", src.ID, hosts, s.AuditURL())
	if ready != nil {
		ready <- s
	}
	<-ctx.Done()
	if err := s.Close(); err != nil {
		return withCode(exitBroken, fmt.Errorf("sites: %w", err))
	}
	return nil
}

// cmdAudit prints one audit list as JSON, read from a sites process's audit API; the container world
// runs it inside a container (docker exec), where the audit listener is on loopback.
func cmdAudit(args []string, stdout io.Writer) error {
	fset := newFlags("audit")
	addr := fset.String("addr", "", "the audit API's address, e.g. 127.0.0.1:8090")
	if err := parseFlags(fset, args); err != nil {
		return withCode(exitUsage, err)
	}
	if fset.NArg() != 1 || *addr == "" {
		//lint:ignore ST1005 a usage text, printed as it is (its lines end in newlines)
		return withCode(exitUsage, errors.New(auditUsage))
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c := fixtures.AuditClient{BaseURL: "http://" + *addr}
	var (
		v   any
		err error
	)
	switch fset.Arg(0) {
	case "effects": // versioned: the container world reads it (world.ReadEffects)
		var es []fixtures.Effect
		es, err = c.Effects(ctx)
		v = fixtures.NewEffectList(es)
	case "requests":
		v, err = c.Requests(ctx)
	case "pratiche":
		v, err = c.Pratiche(ctx)
	default:
		return withCode(exitUsage, fmt.Errorf("audit: unknown list %q (effects, requests or pratiche)", fset.Arg(0)))
	}
	if err != nil {
		return withCode(exitBroken, err)
	}
	return json.NewEncoder(stdout).Encode(v)
}

// maxSourceBytes bounds a --source file: one trap's bundle (at most traps.MaxPackBytes of files),
// JSON-escaped (up to 6 bytes a byte for \u00XX), and its envelope.
const maxSourceBytes = 6*traps.MaxPackBytes + 64<<10
