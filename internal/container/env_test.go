package container

import (
	"context"
	"strings"
	"testing"
)

func TestModeFromEnv(t *testing.T) {
	for v, want := range map[string]Mode{"": ModeEmbedded, "embedded": ModeEmbedded, "container": ModeContainer, "auto": ModeAuto} {
		t.Setenv(EnvWorld, v)
		if got, err := ModeFromEnv(); err != nil || got != want {
			t.Errorf("%s=%q: got %q, %v; want %q", EnvWorld, v, got, err, want)
		}
	}
	t.Setenv(EnvWorld, "docker")
	if _, err := ModeFromEnv(); err == nil || !strings.Contains(err.Error(), EnvWorld) {
		t.Fatalf("a bad value: got %v, want an error naming %s", err, EnvWorld)
	}
}

// TestResolveEmbeddedAsksNoEngine: embedded stays embedded and says why, without touching Docker.
func TestResolveEmbeddedAsksNoEngine(t *testing.T) {
	m, why, err := Resolve(context.Background(), ModeEmbedded)
	if err != nil || m != ModeEmbedded || !strings.Contains(why, "embedded") {
		t.Fatalf("got %q %q %v", m, why, err)
	}
}

func TestPublishIP(t *testing.T) {
	t.Setenv("DOCKER_HOST", "")
	if ip := PublishIP(); ip != "127.0.0.1" {
		t.Fatalf("local engine: %s", ip)
	}
	t.Setenv("DOCKER_HOST", "tcp://docker:2375")
	t.Setenv("TRAPLINE_PUBLISH_IP", "10.0.0.5")
	if ip := PublishIP(); ip != "10.0.0.5" {
		t.Fatalf("remote engine with TRAPLINE_PUBLISH_IP: %s", ip)
	}
}
