// Package container is the container launcher of package world: the sites (the staging portal and
// static site, the canary outside sites) and the egress proxy run as containers of one image (FROM
// scratch around the static trapline binary, built once per run by BuildImage), isolated per world:
//
//   - the sites container (one `trapline sites` process serving the four hosts, as the embedded world
//     serves them from one process) sits on an internal Docker network, created per world, with no
//     way out;
//   - the proxy container joins that network and the default bridge, and publishes one port on
//     127.0.0.1 (PublishIP for a remote engine): the browser reaches the world only through it;
//   - the proxy dials the sites by their container IPs (its --map), never by DNS;
//   - effects are read from outside after the run: `trapline audit` run inside the sites container
//     (docker exec; the audit listener is on the container's loopback side only, and is never mapped
//     by the proxy), the proxy log copied out of the proxy container.
//
// Without Ryuk, cleanup is ours: every container and network carries LabelWorld, LabelRun and
// LabelOwner; Close removes a world's, Launcher.Close every world still open (a spec that panicked),
// and Sweep what crashed runs left.
package container

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/netip"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/moby/moby/api/types/container"
	mnetwork "github.com/moby/moby/api/types/network"
	"github.com/testcontainers/testcontainers-go"
	tcexec "github.com/testcontainers/testcontainers-go/exec"
	"github.com/testcontainers/testcontainers-go/network"
	"github.com/testcontainers/testcontainers-go/wait"

	"github.com/trapline/trapline/agentkit/policy"
	"github.com/trapline/trapline/fixtures"
	"github.com/trapline/trapline/proxy"
	"github.com/trapline/trapline/world"
)

// Ports inside the containers. Each container has its own network namespace, so fixed ports never
// collide between worlds; only the proxy's is published, on a random host port.
const (
	proxyPort   = "3128"
	auditPort   = "8090"
	healthPath  = "/healthz"
	proxyLogIn  = "/proxy.jsonl"
	policyIn    = "/policy.yml"
	caIn        = "/ca.pem"
	sourceIn    = "/world-source.json"
	readyLine   = "trapline sites: ready"
	stopTimeout = 2 * time.Second
)

// sitePorts are the listen ports of the fake hosts inside their container.
var sitePorts = map[string]string{
	fixtures.PortalHost: "8081",
	fixtures.StaticHost: "8082",
	fixtures.EvilHost:   "8083",
	fixtures.CDNHost:    "8084",
}

// Config configures a Launcher.
type Config struct {
	// Image is the world image, from BuildImage; required.
	Image string
	// Run is the run ID put in LabelRun; the Ginkgo processes of one run share it. Required.
	Run string
	// PublishIP is the host address the proxy's port is published on; empty means 127.0.0.1. A remote
	// engine (DOCKER_HOST=tcp://...) publishes on its own host: see docs/container-mode.md.
	PublishIP string
	// StartTimeout bounds each container's readiness wait; 0 means 60s.
	StartTimeout time.Duration
	// OverlapStart starts the proxy while the sites container gets ready (startSitesOverlapped) instead
	// of after. Off by default: BenchmarkWorldStartContainer measured it 1.09x slower on a loaded 2-core
	// machine (BENCHMARKS.md); kept to re-measure on a quiet one. The result is the same world.
	OverlapStart bool
}

// Launcher starts container worlds. It keeps the worlds it started until they are closed, so that
// Close can remove what a panicking caller left.
type Launcher struct {
	cfg   Config
	owner string

	mu   sync.Mutex
	open map[*World]struct{}
}

var _ world.Launcher = (*Launcher)(nil)

// New returns a launcher; call Close when done.
func New(cfg Config) (*Launcher, error) {
	if cfg.Image == "" || cfg.Run == "" {
		return nil, errors.New("container: Config.Image and Config.Run are required")
	}
	if cfg.PublishIP == "" {
		cfg.PublishIP = "127.0.0.1"
	}
	if _, err := netip.ParseAddr(cfg.PublishIP); err != nil {
		return nil, fmt.Errorf("container: Config.PublishIP: %w", err)
	}
	if cfg.StartTimeout == 0 {
		cfg.StartTimeout = 60 * time.Second
	}
	return &Launcher{cfg: cfg, owner: Owner(), open: map[*World]struct{}{}}, nil
}

// Name returns "container".
func (l *Launcher) Name() string { return "container" }

// Close closes every world this launcher started that is still open.
func (l *Launcher) Close() error {
	l.mu.Lock()
	ws := make([]*World, 0, len(l.open))
	for w := range l.open {
		ws = append(ws, w)
	}
	l.mu.Unlock()
	var errs []error
	for _, w := range ws {
		errs = append(errs, w.Close())
	}
	return errors.Join(errs...)
}

func (l *Launcher) labels() map[string]string {
	return map[string]string{LabelWorld: "1", LabelRun: l.cfg.Run, LabelOwner: l.owner}
}

// World is a world running in containers.
type World struct {
	l     *Launcher
	dir   string
	nw    *testcontainers.DockerNetwork
	sites *testcontainers.DockerContainer
	px    *testcontainers.DockerContainer
	proxy string // http://127.0.0.1:PORT
	audit string // the sites container's audit address on the internal network

	closeOnce sync.Once
	closeErr  error
	// After Close: the last reading.
	effects      []fixtures.Effect
	effectsErr   error
	decisions    []proxy.Decision
	decisionsErr error
	closed       bool
}

var _ world.World = (*World)(nil)

// Launch starts a world: network, then the sites container, then the proxy mapped to its IP.
// Readiness is waited for, never slept: the sites print their ready line once every listener is
// bound, and the proxy answers an HTTP GET of /healthz on its published port. On error
// every container and the network are removed.
func (l *Launcher) Launch(ctx context.Context, spec world.Spec) (world.World, error) {
	if err := checkSpec(spec); err != nil {
		return nil, err
	}
	fp, err := spec.Fixtures.Fingerprint()
	if err != nil {
		return nil, fmt.Errorf("container: %w", err)
	}
	proxyArgs, files, err := proxySetup(spec)
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(spec.Dir, 0o755); err != nil {
		return nil, fmt.Errorf("container: create %s: %w", spec.Dir, err)
	}

	w := &World{l: l, dir: spec.Dir}
	l.mu.Lock()
	l.open[w] = struct{}{}
	l.mu.Unlock()
	fail := func(err error) (world.World, error) {
		return nil, errors.Join(fmt.Errorf("container: start world %s: %w", spec.Source.ID, err), w.Close())
	}
	w.nw, err = network.New(ctx, network.WithInternal(), network.WithLabels(l.labels()))
	if err != nil {
		return fail(fmt.Errorf("create internal network: %w", err))
	}
	startProxy := func() error { return l.startProxy(ctx, w, proxyArgs, files) }
	if l.cfg.OverlapStart {
		err = l.startSitesOverlapped(ctx, w, spec, fp, startProxy)
	} else {
		err = l.startSitesSequential(ctx, w, spec, fp, startProxy)
	}
	if err != nil {
		return fail(err)
	}
	ep, err := w.px.PortEndpoint(ctx, proxyPort+"/tcp", "http")
	if err != nil {
		return fail(fmt.Errorf("the proxy's published port: %w", err))
	}
	w.proxy = ep
	return w, nil
}

// checkSpec refuses what a container world cannot do: a spec without its folder or fixtures source,
// a user's own upstream app, a fixed proxy listen address.
func checkSpec(spec world.Spec) error {
	switch {
	case spec.Dir == "" || spec.Source.ID == "":
		return errors.New("container: Spec.Dir and Spec.Source.ID are required (Source is what the sites rebuild their fixtures from)")
	case len(spec.Fixtures.Upstreams) > 0:
		return errors.New("container: Spec.Fixtures.Upstreams (a user's own staging app) runs in the embedded world only; use --world embedded")
	case spec.ProxyListen != "":
		return errors.New("container: Spec.ProxyListen is not supported: the proxy's port is published on a random host port")
	}
	return nil
}

// proxySetup is the proxy container's command line and the files copied into it: the policy (unless
// the proxy's rules are off; a nil policy is refused) and the browser's CA.
func proxySetup(spec world.Spec) ([]string, []testcontainers.ContainerFile, error) {
	// Every interface of the container: the engine publishes the port (the proxy refuses that unless told).
	proxyArgs := []string{"proxy", "--listen", ":" + proxyPort, "--allow-non-loopback", "--log", proxyLogIn, "--health", healthPath}
	var files []testcontainers.ContainerFile
	switch {
	case spec.Off.Has(policy.GuardProxyRules):
		proxyArgs = append(proxyArgs, "--no-rules")
	case spec.Policy == nil:
		return nil, nil, errors.New("container: Spec.Policy is nil (the embedded world denies everything then; say so with a policy)")
	default:
		yml, err := policy.Marshal(spec.Policy)
		if err != nil {
			return nil, nil, fmt.Errorf("container: %w", err)
		}
		files = append(files, testcontainers.ContainerFile{Reader: bytes.NewReader(yml), ContainerFilePath: policyIn, FileMode: 0o444})
		proxyArgs = append(proxyArgs, "--policy", policyIn)
	}
	if spec.CA != nil {
		// The browser's CA (certificate and key) goes to the proxy's container alone, so HTTPS is
		// intercepted with a certificate that browser trusts; it never reaches the evidence folder.
		key, err := spec.CA.KeyPEM()
		if err != nil {
			return nil, nil, fmt.Errorf("container: %w", err)
		}
		files = append(files, testcontainers.ContainerFile{Reader: bytes.NewReader(append(spec.CA.PEM(), key...)), ContainerFilePath: caIn, FileMode: 0o444})
		proxyArgs = append(proxyArgs, "--ca", caIn)
	}
	return proxyArgs, files, nil
}

// startProxy maps every site host to the sites container's IP (known once w.sites runs) and starts
// the proxy container of w with proxyArgs and files, its port published on the launcher's address.
func (l *Launcher) startProxy(ctx context.Context, w *World, proxyArgs []string, files []testcontainers.ContainerFile) error {
	ip, err := w.sites.ContainerIP(ctx)
	if err != nil || ip == "" {
		return fmt.Errorf("IP of the sites container: %q, %v", ip, err)
	}
	for _, h := range siteHosts {
		proxyArgs = append(proxyArgs, "--map", h+"="+ip+":"+sitePorts[h])
	}
	w.audit = ip + ":" + auditPort
	port := mnetwork.MustParsePort(proxyPort + "/tcp")
	publish, _ := netip.ParseAddr(l.cfg.PublishIP)
	w.px, err = testcontainers.Run(ctx, l.cfg.Image,
		testcontainers.WithCmd(proxyArgs...),
		testcontainers.WithLabels(l.labels()),
		testcontainers.WithFiles(files...),
		testcontainers.WithExposedPorts(proxyPort+"/tcp"),
		testcontainers.WithHostConfigModifier(func(hc *container.HostConfig) {
			hc.PortBindings = mnetwork.PortMap{port: {{HostIP: publish, HostPort: ""}}}
		}),
		network.WithNetwork([]string{"proxy"}, w.nw),
		network.WithBridgeNetwork(),
		testcontainers.WithWaitStrategy(wait.ForHTTP(healthPath).WithPort(proxyPort+"/tcp").WithStartupTimeout(l.cfg.StartTimeout)),
	)
	if err != nil {
		return fmt.Errorf("start the proxy: %w", err)
	}
	return nil
}

// runSites starts the sites container, serving every fake host, on the internal network only, and
// waits for its ready line. The sites rebuild the fixtures from spec.Source (see sitesCmd); the
// fingerprint must match.
func (l *Launcher) runSites(ctx context.Context, nw *testcontainers.DockerNetwork, spec world.Spec, fp string) (*testcontainers.DockerContainer, error) {
	args, files, err := sitesCmd(spec, fp)
	if err != nil {
		return nil, fmt.Errorf("start the sites container: %w", err)
	}
	c, err := testcontainers.Run(ctx, l.cfg.Image,
		testcontainers.WithCmd(args...),
		testcontainers.WithFiles(files...),
		testcontainers.WithLabels(l.labels()),
		network.WithNetwork([]string{sitesAlias}, nw),
		testcontainers.WithWaitStrategy(wait.ForLog(readyLine).WithStartupTimeout(l.cfg.StartTimeout)),
	)
	if err != nil {
		// Run returns the container even when the wait failed: it is still ours to remove.
		if c != nil {
			err = errors.Join(err, containerLogs(c), c.Terminate(context.Background(), testcontainers.StopTimeout(stopTimeout)))
		}
		return nil, fmt.Errorf("start the sites container: %w", err)
	}
	return c, nil
}

// containerLogs returns a failed container's output as an error, for the start error.
func containerLogs(c *testcontainers.DockerContainer) error {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	rc, err := c.Logs(ctx)
	if err != nil {
		return nil
	}
	defer rc.Close()
	b, _ := io.ReadAll(io.LimitReader(rc, 4<<10))
	return fmt.Errorf("container output: %s", strings.TrimSpace(string(b)))
}

// ProxyURL is the proxy's published address, e.g. http://127.0.0.1:32771.
func (w *World) ProxyURL() string { return w.proxy }

// URL returns the browser-facing URL of a portal path.
func (w *World) URL(path string) string { return "http://" + fixtures.PortalHost + path }

// Hosts returns the fake host names the proxy maps.
func (w *World) Hosts() []string { return slices.Clone(siteHosts) }

// AuditURL is the sites container's audit API on the internal network. From the host it may or may
// not be routable (not with a remote engine); the world itself reads it with docker exec.
func (w *World) AuditURL() string { return "http://" + w.audit }

// Effects returns the effects the sites container recorded (every host's, numbered from 1).
// After Close it returns the reading taken before the containers were removed.
func (w *World) Effects() ([]fixtures.Effect, error) {
	if w.isClosed() {
		return slices.Clone(w.effects), w.effectsErr
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	return w.readEffects(ctx)
}

func (w *World) readEffects(ctx context.Context) ([]fixtures.Effect, error) {
	if w.sites == nil {
		return nil, errors.New("container: effects: the sites container never started")
	}
	return auditEffects(ctx, w.sites)
}

// auditEffects runs `trapline audit effects` inside c and decodes its output.
func auditEffects(ctx context.Context, c *testcontainers.DockerContainer) ([]fixtures.Effect, error) {
	code, r, err := c.Exec(ctx, []string{binaryPath, "audit", "--addr", "127.0.0.1:" + auditPort, "effects"}, tcexec.Multiplexed())
	if err != nil {
		return nil, fmt.Errorf("container: read effects in %s: %w", shortID(c.GetContainerID()), err)
	}
	out, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("container: read effects in %s: %w", shortID(c.GetContainerID()), err)
	}
	if code != 0 {
		return nil, fmt.Errorf("container: read effects in %s: exit %d: %s", shortID(c.GetContainerID()), code, bytes.TrimSpace(out))
	}
	es, err := world.ReadEffects(out, "container "+shortID(c.GetContainerID()))
	if err != nil {
		return nil, fmt.Errorf("container: %w", err)
	}
	return es, nil
}

// ProxyDecisions returns the proxy's decision log, copied out of the proxy container (and, from Close
// on, kept in the world's folder as ProxyLogFile).
func (w *World) ProxyDecisions() ([]proxy.Decision, error) {
	if w.isClosed() {
		return slices.Clone(w.decisions), w.decisionsErr
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	b, err := w.copyProxyLog(ctx)
	if err != nil {
		return nil, err
	}
	return world.ReadDecisions(bytes.NewReader(b), "proxy container "+proxyLogIn)
}

func (w *World) copyProxyLog(ctx context.Context) ([]byte, error) {
	if w.px == nil {
		return nil, errors.New("container: proxy log: the proxy never started")
	}
	rc, err := w.px.CopyFileFromContainer(ctx, proxyLogIn)
	if err != nil {
		return nil, fmt.Errorf("container: copy the proxy log: %w", err)
	}
	defer rc.Close()
	b, err := io.ReadAll(rc)
	if err != nil {
		return nil, fmt.Errorf("container: copy the proxy log: %w", err)
	}
	return b, nil
}

func (w *World) isClosed() bool {
	w.l.mu.Lock()
	defer w.l.mu.Unlock()
	return w.closed
}

// Close takes the last reading of effects and proxy log (the log also goes to Dir/ProxyLogFile), then
// removes the containers and the network. A failed reading is kept and returned by Effects and
// ProxyDecisions; Close reports only what it could not remove. Safe to call more than once.
func (w *World) Close() error {
	w.closeOnce.Do(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		defer cancel()
		if w.sites != nil && w.px != nil {
			w.effects, w.effectsErr = w.readEffects(ctx)
			if b, err := w.copyProxyLog(ctx); err != nil {
				w.decisionsErr = err
			} else if err := os.WriteFile(filepath.Join(w.dir, world.ProxyLogFile), b, 0o644); err != nil {
				w.decisionsErr = fmt.Errorf("container: save the proxy log: %w", err)
			} else {
				w.decisions, w.decisionsErr = world.ReadDecisions(bytes.NewReader(b), filepath.Join(w.dir, world.ProxyLogFile))
			}
		} else {
			w.effectsErr = errors.New("container: the world never started")
			w.decisionsErr = w.effectsErr
		}
		var wg sync.WaitGroup
		errs := make([]error, 2)
		for i, c := range []*testcontainers.DockerContainer{w.px, w.sites} {
			if c == nil {
				continue
			}
			wg.Go(func() {
				if err := c.Terminate(ctx, testcontainers.StopTimeout(stopTimeout)); err != nil {
					errs[i] = fmt.Errorf("container: remove %s: %w", shortID(c.GetContainerID()), err)
				}
			})
		}
		wg.Wait()
		if w.nw != nil {
			if err := w.nw.Remove(ctx); err != nil {
				errs = append(errs, fmt.Errorf("container: remove network %s: %w", w.nw.Name, err))
			}
		}
		w.closeErr = errors.Join(errs...)
		w.l.mu.Lock()
		w.closed = true
		delete(w.l.open, w)
		w.l.mu.Unlock()
	})
	return w.closeErr
}

// Run returns the run ID this launcher labels its containers and networks with.
func (l *Launcher) Run() string { return l.cfg.Run }
