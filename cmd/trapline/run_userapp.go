package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/url"
	"os"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/trapline/trapline/fixtures"
	"github.com/trapline/trapline/internal/container"
	"github.com/trapline/trapline/traps"
)

// userAppFlags are run's flags for the user's own staging app beyond --upstream: the app as an image
// and a state probe run as a command.
type userAppFlags struct {
	image, port, probeCmd, resetCmd string
	imageURL                        string // where --upstream-image's container answers, once started
	ca                              string // --upstream-ca: PEM certificates to trust for an https:// --upstream
}

func (f *userAppFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&f.image, "upstream-image", "", "your staging app as a container image on the engine (with --upstream-host; instead of --upstream)")
	fs.StringVar(&f.port, "upstream-port", "8080", "the port the --upstream-image app listens on in its container")
	fs.StringVar(&f.ca, "upstream-ca", "", "a PEM file of the certificates to trust for an https:// --upstream (its self-signed certificate or CA)")
	fs.StringVar(&f.probeCmd, "probe-cmd", "", "a command (split on spaces, no shell) whose stdout JSON is the state, read instead of each trap's probe")
	fs.StringVar(&f.resetCmd, "reset-cmd", "", "a command (split on spaces, no shell) run before every arm to put your app back in its seeded state, instead of each trap's reset:; a failure breaks the arm")
}

// checkUpstreamFlags checks --upstream, --upstream-image and --upstream-host together.
func checkUpstreamFlags(cfg runConfig) error {
	bare := slices.ContainsFunc(cfg.upstream, isBareUpstream)
	switch {
	case bare && cfg.app.image != "":
		return errors.New("--upstream URL and --upstream-image are two ways to give the app of --upstream-host: give one (other apps as --upstream HOST=URL)")
	case (bare || cfg.app.image != "") != (cfg.upstreamHost != ""):
		return errors.New("a bare --upstream URL (or --upstream-image) and --upstream-host go together: the app and the host name the browser uses for it (or give --upstream HOST=URL)")
	case cfg.app.image != "" && cfg.world != "embedded":
		return fmt.Errorf("--upstream-image runs beside the embedded world only (a container world refuses an upstream), not --world %s", cfg.world)
	case cfg.app.probeCmd != "" && !slices.ContainsFunc(cfg.traps, func(t traps.Trap) bool { return t.Probe != nil }):
		// A probe command no trap reads would be a check that never runs: refuse it.
		return errors.New("--probe-cmd: none of the selected traps has a state probe (a pack's probe: {command: [...] | get: PATH, count: FIELD, must_not: decrease})")
	}
	imageURL := ""
	if cfg.app.image != "" {
		imageURL = "http://image.invalid" // a placeholder: the container's address is known once it runs
	}
	ups, err := parseUpstreams(cfg.upstream, cfg.upstreamHost, imageURL, cfg.app.ca)
	if err != nil {
		return err
	}
	if cfg.app.ca != "" && !slices.ContainsFunc(ups, func(u fixtures.Upstream) bool { return strings.HasPrefix(u.URL, "https://") }) {
		return errors.New("--upstream-ca is the trust for an https:// --upstream; give one")
	}
	return nil
}

// isBareUpstream says an --upstream value is a URL alone (the app of --upstream-host), not HOST=URL.
func isBareUpstream(v string) bool {
	return strings.HasPrefix(v, "http://") || strings.HasPrefix(v, "https://")
}

// upstreamHostName is a host name an app may be served under in the world (what a pack's start_host
// and host: name).
var upstreamHostName = regexp.MustCompile(`^[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)+$`)

// parseUpstreams turns the --upstream values (HOST=URL, or one bare URL served as host) and the
// --upstream-image's address (imageURL, served as host) into the world's upstreams; ca is the
// --upstream-ca file, used for every https:// one. Each host at most once, never one of the world's.
func parseUpstreams(values []string, host, imageURL, ca string) ([]fixtures.Upstream, error) {
	var out []fixtures.Upstream
	add := func(h, raw, flag string) error {
		u, err := url.Parse(raw)
		switch {
		case !upstreamHostName.MatchString(h):
			return fmt.Errorf("%s: host %q: want a lower-case host name like portale.example.test", flag, h)
		case slices.Contains([]string{fixtures.PortalHost, fixtures.StaticHost, fixtures.EvilHost, fixtures.CDNHost}, h):
			return fmt.Errorf("%s: host %q is one of the world's own sites: give your app a name of its own", flag, h)
		case slices.ContainsFunc(out, func(o fixtures.Upstream) bool { return o.Host == h }):
			return fmt.Errorf("%s: host %q is given twice: one app per host", flag, h)
		case err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "":
			return fmt.Errorf("%s: %q is not an http:// or https:// URL", flag, raw)
		}
		up := fixtures.Upstream{Host: h, URL: raw}
		if u.Scheme == "https" {
			up.CAFile = ca
		}
		out = append(out, up)
		return nil
	}
	bare := 0
	for _, v := range values {
		if isBareUpstream(v) {
			if bare++; bare > 1 {
				return nil, errors.New("--upstream: one bare URL at most (the app of --upstream-host); name the others: --upstream HOST=URL")
			}
			if err := add(host, v, "--upstream "+v); err != nil {
				return nil, err
			}
			continue
		}
		h, raw, ok := strings.Cut(v, "=")
		if !ok {
			return nil, fmt.Errorf("--upstream %q: want HOST=URL (like portale.example.test=http://127.0.0.1:8080) or a URL with --upstream-host", v)
		}
		if err := add(h, raw, "--upstream "+v); err != nil {
			return nil, err
		}
	}
	if imageURL != "" {
		if err := add(host, imageURL, "--upstream-image"); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// probeCommand is --probe-cmd as argv, nil when unset.
func (f userAppFlags) probeCommand() []string { return strings.Fields(f.probeCmd) }

// resetCommand is --reset-cmd as argv, nil when unset.
func (f userAppFlags) resetCommand() []string { return strings.Fields(f.resetCmd) }

// startUserApp starts --upstream-image's container, if any, and points cfg's upstream at it; the
// returned function removes it.
func startUserApp(ctx context.Context, cfg *runConfig, stdout io.Writer) (func() error, error) {
	if cfg.app.image == "" {
		return func() error { return nil }, nil
	}
	engine := container.EngineFromEnv(os.Getenv)
	container.Setup(engine)
	if err := container.EngineHealth(ctx); err != nil {
		return nil, withCode(exitBroken, fmt.Errorf("--upstream-image %s needs a Docker engine (scripts/docker-up.sh): %w", cfg.app.image, err))
	}
	app, err := container.StartApp(ctx, container.AppConfig{Image: cfg.app.image, Port: cfg.app.port,
		Run: fmt.Sprintf("app-%d", time.Now().UnixNano()), PublishIP: engine.Publish()})
	if err != nil {
		return nil, withCode(exitBroken, err)
	}
	cfg.app.imageURL = app.URL()
	fmt.Fprintf(stdout, "trapline: app %s at %s, as %s\n", cfg.app.image, app.URL(), cfg.upstreamHost)
	return app.Close, nil
}
