package container

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/testcontainers/testcontainers-go"
)

// EnvWorld selects the launcher: "embedded" (the default), "container", or "auto" (container when a
// Docker engine answers, else embedded).
const EnvWorld = "TRAPLINE_WORLD"

// Mode is a value of EnvWorld.
type Mode string

// The modes.
const (
	ModeEmbedded  Mode = "embedded"
	ModeContainer Mode = "container"
	ModeAuto      Mode = "auto"
)

// ModeFromEnv reads EnvWorld through getenv (the caller passes os.Getenv: this package reads no
// environment of its own, see Setup for testcontainers'); unset or empty is ModeEmbedded.
func ModeFromEnv(getenv func(string) string) (Mode, error) {
	switch v := strings.TrimSpace(getenv(EnvWorld)); v {
	case "", string(ModeEmbedded):
		return ModeEmbedded, nil
	case string(ModeContainer), string(ModeAuto):
		return Mode(v), nil
	default:
		return "", fmt.Errorf("%s=%q: want embedded, container or auto", EnvWorld, v)
	}
}

// Engine is the Docker engine the launchers talk to, as the environment names it: the commands fill it
// with EngineFromEnv(os.Getenv). The zero Engine is the local socket.
type Engine struct {
	// Host is DOCKER_HOST, which testcontainers itself reads too: "" or unix://... is a local socket.
	Host string `json:"host,omitempty"`
	// PublishIP is TRAPLINE_PUBLISH_IP: where a remote engine publishes the proxy's port (see
	// Engine.Publish).
	PublishIP string `json:"publish_ip,omitempty"`
}

// EngineFromEnv reads DOCKER_HOST and TRAPLINE_PUBLISH_IP through getenv (the caller passes os.Getenv).
func EngineFromEnv(getenv func(string) string) Engine {
	return Engine{Host: getenv("DOCKER_HOST"), PublishIP: getenv("TRAPLINE_PUBLISH_IP")}
}

// Resolve turns auto into embedded or container, by asking e (Setup first); why says what was
// decided and on what grounds, for the run's log. Container fails when no engine answers.
func Resolve(ctx context.Context, m Mode, e Engine) (Mode, string, error) {
	if m == ModeEmbedded {
		return m, "embedded world (" + EnvWorld + " unset or embedded)", nil
	}
	Setup(e)
	err := EngineHealth(ctx)
	switch {
	case err == nil:
		return ModeContainer, fmt.Sprintf("container world (%s=%s; engine %s answers)", EnvWorld, m, e), nil
	case m == ModeAuto:
		return ModeEmbedded, fmt.Sprintf("embedded world (%s=auto; no Docker engine answers: %v)", EnvWorld, err), nil
	default:
		return "", "", fmt.Errorf("%s=container but no Docker engine answers (run scripts/docker-up.sh): %w", EnvWorld, err)
	}
}

// EngineHealth asks the Docker engine whether it answers, within 5 seconds.
func EngineHealth(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	p, err := testcontainers.NewDockerProvider()
	if err != nil {
		return err
	}
	defer p.Close()
	return p.Health(ctx)
}

// String names the engine: DOCKER_HOST, or the default local socket.
func (e Engine) String() string {
	if e.Host != "" {
		return e.Host
	}
	return "unix:///var/run/docker.sock"
}

// Local reports whether the engine is a local socket (DOCKER_HOST unset or unix://).
func (e Engine) Local() bool {
	return e.Host == "" || strings.HasPrefix(e.Host, "unix://")
}

// Publish is where the proxy's port is published: 127.0.0.1 for a local engine; for a remote one,
// TRAPLINE_PUBLISH_IP, else 0.0.0.0 (the engine's host must be reachable from the browser's, and
// should be a private CI network).
func (e Engine) Publish() string {
	if e.Local() {
		return "127.0.0.1"
	}
	if e.PublishIP != "" {
		return e.PublishIP
	}
	return "0.0.0.0"
}
