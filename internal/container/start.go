package container

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/testcontainers/testcontainers-go"
	"github.com/testcontainers/testcontainers-go/network"
	"github.com/testcontainers/testcontainers-go/wait"

	"github.com/trapline/trapline/fixtures"
	"github.com/trapline/trapline/world"
)

// startSitesOverlapped starts the staging and canary containers (in parallel) without waiting for
// their ready line, calls startProxy as soon as both have an IP on the internal network, and waits
// for the two ready lines while the proxy starts. The world is ready only when all three are: the
// sites' ready line and the proxy's /healthz, as before; only the waits overlap. The proxy needs the
// sites' IPs for its --map (it dials literal addresses, never DNS), and a container has its IP from
// the moment it is started, before its process is ready.
//
// On error the containers already started are stored in w, so w.Close removes them.
func (l *Launcher) startSitesOverlapped(ctx context.Context, w *World, spec world.Spec, fp string, startProxy func() error) error {
	var wg sync.WaitGroup
	var stErr, caErr error
	wg.Go(func() {
		w.staging, stErr = l.createSites(ctx, w.nw, "staging", spec, fp, stagingHosts...)
	})
	wg.Go(func() {
		w.canary, caErr = l.createSites(ctx, w.nw, "canary", spec, fp, canaryHosts...)
	})
	wg.Wait()
	if err := errors.Join(stErr, caErr); err != nil {
		return err
	}
	errs := make([]error, 3)
	wg.Go(func() { errs[0] = l.waitSites(ctx, w.staging, "staging") })
	wg.Go(func() { errs[1] = l.waitSites(ctx, w.canary, "canary") })
	errs[2] = startProxy()
	wg.Wait()
	return errors.Join(errs...)
}

// createSites starts one site container serving hosts, on the internal network only, without waiting
// for it to be ready (waitSites does).
func (l *Launcher) createSites(ctx context.Context, nw *testcontainers.DockerNetwork, alias string, spec world.Spec, fp string, hosts ...string) (*testcontainers.DockerContainer, error) {
	args, files, err := sitesCmd(spec, fp, hosts)
	if err != nil {
		return nil, err
	}
	c, err := testcontainers.Run(ctx, l.cfg.Image,
		testcontainers.WithCmd(args...),
		testcontainers.WithFiles(files...),
		testcontainers.WithLabels(l.labels()),
		network.WithNetwork([]string{alias}, nw),
	)
	if err != nil {
		if c != nil { // Run returns what it created even on error: it is still ours to remove
			return c, fmt.Errorf("start the %s container: %w", alias, err)
		}
		return nil, fmt.Errorf("start the %s container: %w", alias, err)
	}
	return c, nil
}

// waitSites waits for a site container's ready line (every listener bound), with the container's
// output in the error when it does not come.
func (l *Launcher) waitSites(ctx context.Context, c *testcontainers.DockerContainer, alias string) error {
	if err := wait.ForLog(readyLine).WithStartupTimeout(l.cfg.StartTimeout).WaitUntilReady(ctx, c); err != nil {
		return fmt.Errorf("start the %s container: %w", alias, errors.Join(err, containerLogs(c)))
	}
	return nil
}

// The hosts each site container serves.
var (
	stagingHosts = []string{fixtures.PortalHost, fixtures.StaticHost}
	canaryHosts  = []string{fixtures.EvilHost, fixtures.CDNHost}
)

// sitesCmd is the command line of a site container serving hosts, and the files it needs: the
// world's source (spec.Source, world.MarshalSource) is copied in, and the sites rebuild the fixtures
// from it (a pack trap's bundle from its bytes, a Go trap from the binary's registry).
func sitesCmd(spec world.Spec, fp string, hosts []string) ([]string, []testcontainers.ContainerFile, error) {
	src, err := world.MarshalSource(spec.Source)
	if err != nil {
		return nil, nil, fmt.Errorf("the world source: %w", err)
	}
	args := []string{"sites", "--source", sourceIn, "--fingerprint", fp, "--audit", ":" + auditPort}
	files := []testcontainers.ContainerFile{{Reader: bytes.NewReader(src), ContainerFilePath: sourceIn, FileMode: 0o444}}
	for _, h := range hosts {
		args = append(args, "--host", h+"=:"+sitePorts[h])
	}
	return args, files, nil
}

// startSitesSequential is Launch's default: both site containers started and ready (in parallel),
// then the proxy.
func (l *Launcher) startSitesSequential(ctx context.Context, w *World, spec world.Spec, fp string, startProxy func() error) error {
	var wg sync.WaitGroup
	var stErr, caErr error
	wg.Go(func() { w.staging, stErr = l.runSites(ctx, w.nw, "staging", spec, fp, stagingHosts...) })
	wg.Go(func() { w.canary, caErr = l.runSites(ctx, w.nw, "canary", spec, fp, canaryHosts...) })
	wg.Wait()
	if err := errors.Join(stErr, caErr); err != nil {
		return err
	}
	return startProxy()
}
