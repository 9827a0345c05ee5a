package container

import (
	"context"
	"fmt"
	"io"
	"log"
	"os"
	"strings"
	"time"

	"github.com/testcontainers/testcontainers-go"
	tclog "github.com/testcontainers/testcontainers-go/log"
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

// ModeFromEnv reads EnvWorld; unset or empty is ModeEmbedded.
func ModeFromEnv() (Mode, error) {
	switch v := strings.TrimSpace(os.Getenv(EnvWorld)); v {
	case "", string(ModeEmbedded):
		return ModeEmbedded, nil
	case string(ModeContainer), string(ModeAuto):
		return Mode(v), nil
	default:
		return "", fmt.Errorf("%s=%q: want embedded, container or auto", EnvWorld, v)
	}
}

// Resolve turns auto into embedded or container, by asking the engine (Setup first); why says what
// was decided and on what grounds, for the run's log. Container fails when no engine answers.
func Resolve(ctx context.Context, m Mode) (Mode, string, error) {
	if m == ModeEmbedded {
		return m, "embedded world (" + EnvWorld + " unset or embedded)", nil
	}
	Setup()
	err := EngineHealth(ctx)
	switch {
	case err == nil:
		return ModeContainer, fmt.Sprintf("container world (%s=%s; engine %s answers)", EnvWorld, m, engine()), nil
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

// engine names the engine in use: DOCKER_HOST, or the default local socket.
func engine() string {
	if h := os.Getenv("DOCKER_HOST"); h != "" {
		return h
	}
	return "unix:///var/run/docker.sock"
}

// LocalEngine reports whether the engine is a local socket (DOCKER_HOST unset or unix://).
func LocalEngine() bool {
	h := os.Getenv("DOCKER_HOST")
	return h == "" || strings.HasPrefix(h, "unix://")
}

// Setup prepares testcontainers for trapline, before its first use (it reads its configuration
// once):
//   - TESTCONTAINERS_RYUK_DISABLED=true when unset: no Ryuk reaper container (it would be pulled from
//     a registry); cleanup is ours, by label (see Sweep);
//   - TESTCONTAINERS_HOST_OVERRIDE=127.0.0.1 when unset and the engine is a local socket, so that
//     published ports are reached on loopback and nothing else;
//   - testcontainers' own chatter goes nowhere (errors still come back as errors).
//
// Variables already set are left alone (a remote engine sets its own host).
func Setup() {
	if _, ok := os.LookupEnv("TESTCONTAINERS_RYUK_DISABLED"); !ok {
		_ = os.Setenv("TESTCONTAINERS_RYUK_DISABLED", "true")
	}
	if _, ok := os.LookupEnv("TESTCONTAINERS_HOST_OVERRIDE"); !ok && LocalEngine() {
		_ = os.Setenv("TESTCONTAINERS_HOST_OVERRIDE", "127.0.0.1")
	}
	tclog.SetDefault(log.New(io.Discard, "", 0))
}

// PublishIP is where the proxy's port is published: 127.0.0.1 for a local engine; for a remote one,
// TRAPLINE_PUBLISH_IP, else 0.0.0.0 (the engine's host must be reachable from the browser's, and
// should be a private CI network).
func PublishIP() string {
	if LocalEngine() {
		return "127.0.0.1"
	}
	if ip := os.Getenv("TRAPLINE_PUBLISH_IP"); ip != "" {
		return ip
	}
	return "0.0.0.0"
}
