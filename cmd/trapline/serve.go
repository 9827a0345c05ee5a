package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"
	"time"

	"github.com/trapline/trapline/fixtures"
	"github.com/trapline/trapline/harness"
	"github.com/trapline/trapline/internal/bypass"
	"github.com/trapline/trapline/policies"
	"github.com/trapline/trapline/traps"
	"github.com/trapline/trapline/world"
)

// cmdServe starts a world with one trap's pages for a human or an external agent, and runs until
// interrupted. The browser reaches it only through the printed proxy address.
func cmdServe(args []string, stdout io.Writer) error {
	fset := flag.NewFlagSet("serve", flag.ContinueOnError)
	fset.SetOutput(io.Discard)
	trapFlag := fset.String("trap", "decoy-delete", "the trap whose pages to mount")
	policyFlag := fset.String("policy", policies.Permissive, "the policy the proxy enforces: an embedded name or a file")
	var dirs dirsFlag
	fset.Var(&dirs, "traps-dir", "a trap pack folder whose traps --trap may name (repeatable)")
	upstream := fset.String("upstream", "", "the URL of your own staging app (with --upstream-host)")
	upstreamHost := fset.String("upstream-host", "", "the host name the browser uses for --upstream")
	listen := fset.String("listen", "127.0.0.1:0", "the proxy's listen address (loopback)")
	out := fset.String("out", "", "folder for the proxy log (default: a temporary folder)")
	if err := fset.Parse(args); err != nil || fset.NArg() != 0 || (*upstream == "") != (*upstreamHost == "") {
		return withCode(exitUsage, errors.New("usage: trapline serve [--traps-dir DIR]... [--upstream URL --upstream-host HOST] [--trap ID] [--policy NAME|FILE] [--listen 127.0.0.1:PORT] [--out DIR]"))
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	var ups []fixtures.Upstream
	if *upstream != "" {
		ups = []fixtures.Upstream{{Host: *upstreamHost, URL: *upstream}}
	}
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
	dir := out
	if dir == "" {
		if dir, err = os.MkdirTemp("", "trapline-serve-"); err != nil {
			return withCode(exitBroken, fmt.Errorf("serve: %w", err))
		}
	}
	fx := fixtures.Config{Mounts: trap.Mounts, Upstreams: ups}
	if trap.World != nil {
		trap.World(&fx)
	}
	w, err := world.Start(world.Spec{Policy: pol, Fixtures: fx, Dir: dir, ProxyListen: listen})
	if err != nil {
		return withCode(exitBroken, fmt.Errorf("serve: %w", err))
	}
	defer w.Close()
	fmt.Fprintf(stdout, "trap      %s (%s)\nstart     %s\nproxy     %s (policy %s)\naudit     %s/effects\nproxy log %s\n\n",
		trap.ID, trap.Category, harness.StartURL(w, trap), w.ProxyURL(), policyPath, w.AuditURL(), filepath.Join(dir, world.ProxyLogFile))
	fmt.Fprintf(stdout, "open it:  chromium --user-data-dir=$(mktemp -d) --proxy-server=%s --proxy-bypass-list='<-loopback>' %s\n", w.ProxyURL(), harness.StartURL(w, trap))
	fmt.Fprintln(stdout, "Ctrl-C stops the world.")
	if ready != nil {
		ready <- w
	}
	<-ctx.Done()
	return nil
}

const sitesUsage = `usage: trapline sites --world SOURCE [--bundle FILE] --host HOST=ADDR ... --audit ADDR [--fingerprint HEX]

Serves some of a world's sites (the container world's entrypoint): the fixtures of SOURCE (a catalog
trap ID, the scenario's, or a bypass run's "bypass-<technique>-<layers>"; with --bundle, the pack trap
SOURCE serialised in FILE, which is how a pack crosses into the container), only the hosts given, each
on its address, plus the audit API. Prints "trapline sites: ready" once every listener is bound, then
runs until SIGINT or SIGTERM. With --fingerprint, refuses to start when the rebuilt fixtures differ
from what the launcher described.`

// cmdSites runs part of a world's sites until SIGINT or SIGTERM.
func cmdSites(args []string, stdout io.Writer) error {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	return runSites(ctx, args, stdout, nil)
}

// runSites is cmdSites with the stop signal as a context; ready, when not nil, receives the sites.
func runSites(ctx context.Context, args []string, stdout io.Writer, ready chan<- *fixtures.Sites) error {
	hosts := hostMapFlag{}
	fset := flag.NewFlagSet("sites", flag.ContinueOnError)
	fset.SetOutput(io.Discard)
	source := fset.String("world", "", "the trap ID whose fixtures to serve")
	bundle := fset.String("bundle", "", "a trap bundle file (a pack trap serialised by the launcher) to rebuild the fixtures from")
	fingerprint := fset.String("fingerprint", "", "the fixtures' expected fingerprint")
	audit := fset.String("audit", "", "the audit API's listen address")
	fset.Var(hosts, "host", "HOST=ADDR")
	if err := fset.Parse(args); err != nil {
		return withCode(exitUsage, fmt.Errorf("sites: %w\n%s", err, sitesUsage))
	}
	if problem := missingFlags(fset.Args(), map[string]bool{"--world": *source != "", "--audit": *audit != "", "--host": len(hosts) > 0}); problem != "" {
		return withCode(exitUsage, fmt.Errorf("sites: %s\n%s", problem, sitesUsage))
	}
	var cfg fixtures.Config
	var err error
	if *bundle != "" {
		cfg, err = bundleFixtures(*bundle, *source)
	} else {
		cfg, err = worldFixtures(*source)
	}
	if err != nil {
		return withCode(exitUsage, fmt.Errorf("sites: %w", err))
	}
	if *fingerprint != "" {
		got, err := cfg.Fingerprint()
		if err != nil {
			return withCode(exitUsage, fmt.Errorf("sites: %w", err))
		}
		if got != *fingerprint {
			return withCode(exitUsage, fmt.Errorf("sites: the fixtures of %q have fingerprint %s, the launcher expected %s: this binary is not the launcher's build", *source, got, *fingerprint))
		}
	}
	s, err := fixtures.StartSitesOn(cfg, fixtures.Listen{Hosts: hosts, Audit: *audit})
	if err != nil {
		return withCode(exitBroken, fmt.Errorf("sites: %w", err))
	}
	fmt.Fprintf(stdout, "trapline sites: ready (%s: %s; audit %s)\n", *source, hosts, s.AuditURL())
	if ready != nil {
		ready <- s
	}
	<-ctx.Done()
	if err := s.Close(); err != nil {
		return withCode(exitBroken, fmt.Errorf("sites: %w", err))
	}
	return nil
}

// worldFixtures rebuilds the fixtures a harness run of source uses: the trap's mounts, then its World
// hook. Sources are the catalog, the headline scenario and every bypass technique in every layer set.
func worldFixtures(source string) (fixtures.Config, error) {
	candidates := append(traps.Catalog(), traps.Scenario())
	for _, t := range bypass.All() {
		for _, l := range []bypass.Layers{bypass.BothOn, bypass.ProxyAlone, bypass.GateAlone, bypass.BothOff} {
			candidates = append(candidates, t.Trap(l))
		}
	}
	for _, t := range candidates {
		if t.ID != source {
			continue
		}
		cfg := fixtures.Config{Mounts: t.Mounts}
		if t.World != nil {
			t.World(&cfg)
		}
		return cfg, nil
	}
	return fixtures.Config{}, fmt.Errorf("no trap, scenario or bypass run has ID %q", source)
}

// bundleFixtures rebuilds a pack trap's fixtures from the bundle file the launcher shipped; the
// bundle's trap must be source.
func bundleFixtures(file, source string) (fixtures.Config, error) {
	b, err := os.ReadFile(file)
	if err != nil {
		return fixtures.Config{}, fmt.Errorf("read trap bundle: %w", err)
	}
	t, err := traps.FromBundle(b)
	if err != nil {
		return fixtures.Config{}, fmt.Errorf("%s: %w", file, err)
	}
	if t.ID != source {
		return fixtures.Config{}, fmt.Errorf("the bundle %s holds trap %q, not %q", file, t.ID, source)
	}
	cfg := fixtures.Config{Mounts: t.Mounts}
	if t.World != nil {
		t.World(&cfg)
	}
	return cfg, nil
}

// cmdAudit prints one audit list as JSON, read from a sites process's audit API; the container world
// runs it inside a container (docker exec), where the audit listener is on loopback.
func cmdAudit(args []string, stdout io.Writer) error {
	fset := flag.NewFlagSet("audit", flag.ContinueOnError)
	fset.SetOutput(io.Discard)
	addr := fset.String("addr", "", "the audit API's address, e.g. 127.0.0.1:8090")
	if err := fset.Parse(args); err != nil || fset.NArg() != 1 || *addr == "" {
		return withCode(exitUsage, errors.New("usage: trapline audit --addr HOST:PORT effects|requests|pratiche"))
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c := fixtures.AuditClient{BaseURL: "http://" + *addr}
	var (
		v   any
		err error
	)
	switch fset.Arg(0) {
	case "effects":
		v, err = c.Effects(ctx)
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
