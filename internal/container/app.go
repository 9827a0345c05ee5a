package container

import (
	"context"
	"errors"
	"fmt"
	"net/netip"
	"strconv"
	"strings"
	"time"

	"github.com/moby/moby/api/types/container"
	mnetwork "github.com/moby/moby/api/types/network"
	"github.com/testcontainers/testcontainers-go"
	"github.com/testcontainers/testcontainers-go/wait"
)

// AppConfig describes a user's own staging app shipped as a container image (`trapline run
// --upstream-image IMAGE --upstream-port PORT`).
type AppConfig struct {
	// Image is the app's image; it must be on the engine already (nothing is pulled here). Required.
	Image string
	// Port is the TCP port the app listens on inside its container, e.g. "8080". Required.
	Port string
	// Run is the run ID put in LabelRun. Required.
	Run string
	// PublishIP is the host address the app's port is published on; empty means 127.0.0.1.
	PublishIP string
	// StartTimeout bounds the wait for the app's first HTTP answer; 0 means 60s.
	StartTimeout time.Duration
}

// App is a user's staging app running in a container: its port is published on PublishIP (a random
// host port) and the world forwards the app's host name to URL, so the browser still reaches it only
// through the world's proxy, and the harness's state probe reads it straight at URL.
type App struct {
	c   *testcontainers.DockerContainer
	url string
}

// StartApp starts the app's container, labelled like a world's containers (so Sweep and
// `make check-leftovers` see it), and waits until the app answers an HTTP GET of / on its published
// port, with any status (a scratch image has no shell to check from inside). On error nothing is left running.
func StartApp(ctx context.Context, cfg AppConfig) (*App, error) {
	if cfg.Image == "" || cfg.Run == "" {
		return nil, errors.New("container: AppConfig.Image and AppConfig.Run are required")
	}
	if n, err := strconv.Atoi(cfg.Port); err != nil || n < 1 || n > 65535 {
		return nil, fmt.Errorf("container: app %s: port %q: want the TCP port the app listens on in its container, 1-65535", cfg.Image, cfg.Port)
	}
	if cfg.PublishIP == "" {
		cfg.PublishIP = "127.0.0.1"
	}
	publish, err := netip.ParseAddr(cfg.PublishIP)
	if err != nil {
		return nil, fmt.Errorf("container: AppConfig.PublishIP: %w", err)
	}
	if cfg.StartTimeout == 0 {
		cfg.StartTimeout = 60 * time.Second
	}
	cli, err := testcontainers.NewDockerClientWithOpts(ctx)
	if err != nil {
		return nil, fmt.Errorf("container: app %s: docker client: %w", cfg.Image, err)
	}
	_, err = cli.ImageInspect(ctx, cfg.Image)
	cli.Close()
	if err != nil { // testcontainers would try a pull, which cannot work here and says less
		return nil, fmt.Errorf("container: app image %s is not on the engine (build or load it first; nothing is pulled): %w", cfg.Image, err)
	}
	tcp := cfg.Port + "/tcp"
	port := mnetwork.MustParsePort(tcp)
	c, err := testcontainers.Run(ctx, cfg.Image,
		testcontainers.WithLabels(map[string]string{LabelWorld: "1", LabelRun: cfg.Run, LabelOwner: Owner()}),
		testcontainers.WithExposedPorts(tcp),
		testcontainers.WithHostConfigModifier(func(hc *container.HostConfig) {
			hc.PortBindings = mnetwork.PortMap{port: {{HostIP: publish, HostPort: ""}}}
		}),
		// An HTTP answer, any status, from the host: a listening host port alone proves nothing, since
		// Docker's port proxy accepts connections before the app listens and then resets them (the
		// first request of a run got a 502).
		testcontainers.WithWaitStrategy(wait.ForHTTP("/").WithPort(tcp).
			WithStatusCodeMatcher(func(int) bool { return true }).WithStartupTimeout(cfg.StartTimeout)),
	)
	if err != nil {
		if c != nil { // Run returns what it created even on error: still ours to remove
			err = errors.Join(err, containerLogs(c), c.Terminate(context.Background(), testcontainers.StopTimeout(stopTimeout)))
		}
		return nil, fmt.Errorf("container: start app %s: %w", cfg.Image, err)
	}
	ep, err := c.PortEndpoint(ctx, tcp, "http")
	if err != nil {
		return nil, errors.Join(fmt.Errorf("container: app %s: its published port: %w", cfg.Image, err), c.Terminate(context.Background()))
	}
	return &App{c: c, url: strings.TrimSuffix(ep, "/")}, nil
}

// URL is where the app answers from the host, e.g. http://127.0.0.1:32771.
func (a *App) URL() string { return a.url }

// Close removes the app's container.
func (a *App) Close() error {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	if err := a.c.Terminate(ctx, testcontainers.StopTimeout(stopTimeout)); err != nil {
		return fmt.Errorf("container: remove app %s: %w", shortID(a.c.GetContainerID()), err)
	}
	return nil
}
