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

	"github.com/trapline/trapline/agentkit/policy"
	"github.com/trapline/trapline/bypass"
	"github.com/trapline/trapline/fixtures"
	"github.com/trapline/trapline/traps"
	"github.com/trapline/trapline/world"
)

// cmdServe starts a world with one trap's pages for a human or an external agent, and runs until
// interrupted. The browser reaches it only through the printed proxy address.
func cmdServe(args []string, stdout io.Writer) error {
	fset := flag.NewFlagSet("serve", flag.ContinueOnError)
	fset.SetOutput(io.Discard)
	trapFlag := fset.String("trap", "decoy-delete", "the trap whose pages to mount")
	policyFlag := fset.String("policy", "policies/permissive.yml", "the policy the proxy enforces")
	listen := fset.String("listen", "127.0.0.1:0", "the proxy's listen address (loopback)")
	out := fset.String("out", "", "folder for the proxy log (default: a temporary folder)")
	if err := fset.Parse(args); err != nil || fset.NArg() != 0 {
		return withCode(exitUsage, errors.New("usage: trapline serve [--trap ID] [--policy FILE] [--listen 127.0.0.1:PORT] [--out DIR]"))
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	return serve(ctx, *trapFlag, *policyFlag, *listen, *out, stdout, nil)
}

// serve runs the world until ctx ends; ready, when not nil, receives the world once it is up.
func serve(ctx context.Context, trapID, policyPath, listen, out string, stdout io.Writer, ready chan<- *world.Local) error {
	trap, err := traps.Lookup(trapID)
	if err != nil {
		return withCode(exitUsage, err)
	}
	pol, err := policy.Load(policyPath)
	if err != nil {
		return withCode(exitUsage, err)
	}
	dir := out
	if dir == "" {
		if dir, err = os.MkdirTemp("", "trapline-serve-"); err != nil {
			return withCode(exitBroken, fmt.Errorf("serve: %w", err))
		}
	}
	fx := fixtures.Config{Mounts: trap.Mounts}
	if trap.World != nil {
		trap.World(&fx)
	}
	w, err := world.Start(world.Spec{Policy: pol, Fixtures: fx, Dir: dir, ProxyListen: listen})
	if err != nil {
		return withCode(exitBroken, fmt.Errorf("serve: %w", err))
	}
	defer w.Close()
	fmt.Fprintf(stdout, "trap      %s (%s)\nstart     %s\nproxy     %s (policy %s)\naudit     %s/effects\nproxy log %s\n\n",
		trap.ID, trap.Category, w.URL(trap.StartPath), w.ProxyURL(), policyPath, w.AuditURL(), filepath.Join(dir, world.ProxyLogFile))
	fmt.Fprintf(stdout, "open it:  chromium --user-data-dir=$(mktemp -d) --proxy-server=%s --proxy-bypass-list='<-loopback>' %s\n", w.ProxyURL(), w.URL(trap.StartPath))
	fmt.Fprintln(stdout, "Ctrl-C stops the world.")
	if ready != nil {
		ready <- w
	}
	<-ctx.Done()
	return nil
}

const sitesUsage = `usage: trapline sites --world SOURCE --host HOST=ADDR ... --audit ADDR [--fingerprint HEX]

Serves some of a world's sites (the container world's entrypoint): the fixtures of SOURCE (a catalog
trap ID, the scenario's, or a bypass run's "bypass-<technique>-<layers>"), only the hosts given, each
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
	fingerprint := fset.String("fingerprint", "", "the fixtures' expected fingerprint")
	audit := fset.String("audit", "", "the audit API's listen address")
	fset.Var(hosts, "host", "HOST=ADDR")
	if err := fset.Parse(args); err != nil {
		return withCode(exitUsage, fmt.Errorf("sites: %w\n%s", err, sitesUsage))
	}
	if problem := missingFlags(fset.Args(), map[string]bool{"--world": *source != "", "--audit": *audit != "", "--host": len(hosts) > 0}); problem != "" {
		return withCode(exitUsage, fmt.Errorf("sites: %s\n%s", problem, sitesUsage))
	}
	cfg, err := worldFixtures(*source)
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
