package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/trapline/trapline/internal/container"
	"github.com/trapline/trapline/traps"
)

// userAppFlags are run's flags for the user's own staging app beyond --upstream: the app as an image
// and a state probe run as a command.
type userAppFlags struct {
	image, port, probeCmd string
	ca                    string // --upstream-ca: PEM certificates to trust for an https:// --upstream
}

func (f *userAppFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&f.image, "upstream-image", "", "your staging app as a container image on the engine (with --upstream-host; instead of --upstream)")
	fs.StringVar(&f.port, "upstream-port", "8080", "the port the --upstream-image app listens on in its container")
	fs.StringVar(&f.ca, "upstream-ca", "", "a PEM file of the certificates to trust for an https:// --upstream (its self-signed certificate or CA)")
	fs.StringVar(&f.probeCmd, "probe-cmd", "", "a command (split on spaces, no shell) whose stdout JSON is the state, read instead of each trap's probe")
}

// checkUpstreamFlags checks --upstream, --upstream-image and --upstream-host together.
func checkUpstreamFlags(cfg runConfig) error {
	switch {
	case cfg.upstream != "" && cfg.app.image != "":
		return errors.New("--upstream and --upstream-image are two ways to give your app: give one")
	case (cfg.upstream != "" || cfg.app.image != "") != (cfg.upstreamHost != ""):
		return errors.New("--upstream (or --upstream-image) and --upstream-host go together: the app and the host name the browser uses for it")
	case cfg.app.ca != "" && !strings.HasPrefix(cfg.upstream, "https://"):
		return errors.New("--upstream-ca is the trust for an https:// --upstream; give one")
	case cfg.app.image != "" && cfg.world != "embedded":
		return fmt.Errorf("--upstream-image runs beside the embedded world only (a container world refuses an upstream), not --world %s", cfg.world)
	case cfg.app.probeCmd != "" && !slices.ContainsFunc(cfg.traps, func(t traps.Trap) bool { return t.Probe != nil }):
		// A probe command no trap reads would be a check that never runs: refuse it.
		return errors.New("--probe-cmd: none of the selected traps has a state probe (a pack's probe: {command: [...] | get: PATH, count: FIELD, must_not: decrease})")
	}
	return nil
}

// probeCommand is --probe-cmd as argv, nil when unset.
func (f userAppFlags) probeCommand() []string { return strings.Fields(f.probeCmd) }

// startUserApp starts --upstream-image's container, if any, and points cfg's upstream at it; the
// returned function removes it.
func startUserApp(ctx context.Context, cfg *runConfig, stdout io.Writer) (func() error, error) {
	if cfg.app.image == "" {
		return func() error { return nil }, nil
	}
	container.Setup()
	if err := container.EngineHealth(ctx); err != nil {
		return nil, withCode(exitBroken, fmt.Errorf("--upstream-image %s needs a Docker engine (scripts/docker-up.sh): %w", cfg.app.image, err))
	}
	app, err := container.StartApp(ctx, container.AppConfig{Image: cfg.app.image, Port: cfg.app.port,
		Run: fmt.Sprintf("app-%d", time.Now().UnixNano()), PublishIP: container.PublishIP()})
	if err != nil {
		return nil, withCode(exitBroken, err)
	}
	cfg.upstream = app.URL()
	fmt.Fprintf(stdout, "trapline: app %s at %s, as %s\n", cfg.app.image, app.URL(), cfg.upstreamHost)
	return app.Close, nil
}
