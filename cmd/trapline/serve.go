package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"

	"github.com/trapline/trapline/agentkit/policy"
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
