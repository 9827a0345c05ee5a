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

// startSitesOverlapped starts the sites container without waiting for its ready line, calls
// startProxy as soon as it has an IP on the internal network, and waits for the ready line while the
// proxy starts. The world is ready only when both are: the sites' ready line and the proxy's /healthz,
// as before; only the waits overlap. The proxy needs the sites' IP for its --map (it dials literal
// addresses, never DNS), and a container has its IP from the moment it is started, before its
// process is ready.
//
// On error the containers already started are stored in w, so w.Close removes them.
func (l *Launcher) startSitesOverlapped(ctx context.Context, w *World, spec world.Spec, fp string, startProxy func() error) error {
	var err error
	if w.sites, err = l.createSites(ctx, w.nw, spec, fp); err != nil {
		return err
	}
	var wg sync.WaitGroup
	var waitErr error
	wg.Go(func() { waitErr = l.waitSites(ctx, w.sites) })
	proxyErr := startProxy()
	wg.Wait()
	return errors.Join(waitErr, proxyErr)
}

// createSites starts the sites container, serving every fake host, on the internal network only,
// without waiting for it to be ready (waitSites does).
func (l *Launcher) createSites(ctx context.Context, nw *testcontainers.DockerNetwork, spec world.Spec, fp string) (*testcontainers.DockerContainer, error) {
	args, files, err := sitesCmd(spec, fp)
	if err != nil {
		return nil, err
	}
	c, err := testcontainers.Run(ctx, l.cfg.Image,
		testcontainers.WithCmd(args...),
		testcontainers.WithFiles(files...),
		testcontainers.WithLabels(l.labels()),
		network.WithNetwork([]string{sitesAlias}, nw),
	)
	if err != nil {
		// Run returns what it created even on error: it is still ours to remove.
		return c, fmt.Errorf("start the sites container: %w", err)
	}
	return c, nil
}

// waitSites waits for the sites container's ready line (every listener bound), with the container's
// output in the error when it does not come.
func (l *Launcher) waitSites(ctx context.Context, c *testcontainers.DockerContainer) error {
	if err := wait.ForLog(readyLine).WithStartupTimeout(l.cfg.StartTimeout).WaitUntilReady(ctx, c); err != nil {
		return fmt.Errorf("start the sites container: %w", errors.Join(err, containerLogs(c)))
	}
	return nil
}

// The sites container: its network alias, and the hosts it serves (the staging portal and static
// site, and the canary outside sites), each on its own port (sitePorts). One process serves them all,
// with one audit, as the embedded world does; the proxy maps each host to the container's IP.
const sitesAlias = "sites"

var siteHosts = []string{fixtures.PortalHost, fixtures.StaticHost, fixtures.EvilHost, fixtures.CDNHost}

// sitesCmd is the command line of the sites container, and the files it needs: the world's source
// (spec.Source, world.MarshalSource) is copied in, and the sites rebuild the fixtures from it (a pack
// trap's bundle from its bytes, a Go trap from the binary's registry).
func sitesCmd(spec world.Spec, fp string) ([]string, []testcontainers.ContainerFile, error) {
	src, err := world.MarshalSource(spec.Source)
	if err != nil {
		return nil, nil, fmt.Errorf("the world source: %w", err)
	}
	args := []string{"sites", "--source", sourceIn, "--fingerprint", fp, "--audit", ":" + auditPort}
	files := []testcontainers.ContainerFile{{Reader: bytes.NewReader(src), ContainerFilePath: sourceIn, FileMode: 0o444}}
	for _, h := range siteHosts {
		args = append(args, "--host", h+"=:"+sitePorts[h])
	}
	return args, files, nil
}

// startSitesSequential is Launch's default: the sites container started and ready, then the proxy.
func (l *Launcher) startSitesSequential(ctx context.Context, w *World, spec world.Spec, fp string, startProxy func() error) error {
	var err error
	if w.sites, err = l.runSites(ctx, w.nw, spec, fp); err != nil {
		return err
	}
	return startProxy()
}
