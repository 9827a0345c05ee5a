package container

import (
	"context"
	"strings"
	"testing"
)

// env is a lookup in a fixed environment, what the commands' os.Getenv is in these tests.
func env(kv map[string]string) func(string) string { return func(k string) string { return kv[k] } }

func TestModeFromEnv(t *testing.T) {
	for v, want := range map[string]Mode{"": ModeEmbedded, "embedded": ModeEmbedded, "container": ModeContainer, "auto": ModeAuto} {
		if got, err := ModeFromEnv(env(map[string]string{EnvWorld: v})); err != nil || got != want {
			t.Errorf("%s=%q: got %q, %v; want %q", EnvWorld, v, got, err, want)
		}
	}
	if _, err := ModeFromEnv(env(map[string]string{EnvWorld: "docker"})); err == nil || !strings.Contains(err.Error(), EnvWorld) {
		t.Fatalf("a bad value: got %v, want an error naming %s", err, EnvWorld)
	}
}

// TestResolveEmbeddedAsksNoEngine: embedded stays embedded and says why, without touching Docker.
func TestResolveEmbeddedAsksNoEngine(t *testing.T) {
	m, why, err := Resolve(context.Background(), ModeEmbedded, Engine{})
	if err != nil || m != ModeEmbedded || !strings.Contains(why, "embedded") {
		t.Fatalf("got %q %q %v", m, why, err)
	}
}

func TestPublishIP(t *testing.T) {
	for _, c := range []struct {
		env  map[string]string
		want string
	}{
		{map[string]string{}, "127.0.0.1"},
		{map[string]string{"DOCKER_HOST": "unix:///run/user/1000/docker.sock", "TRAPLINE_PUBLISH_IP": "10.0.0.5"}, "127.0.0.1"},
		{map[string]string{"DOCKER_HOST": "tcp://docker:2375"}, "0.0.0.0"},
		{map[string]string{"DOCKER_HOST": "tcp://docker:2375", "TRAPLINE_PUBLISH_IP": "10.0.0.5"}, "10.0.0.5"},
	} {
		if ip := EngineFromEnv(env(c.env)).Publish(); ip != c.want {
			t.Errorf("%v: publish on %s, want %s", c.env, ip, c.want)
		}
	}
}

// TestBuildImageWantsAnEnvironment: a nil environment is refused before go runs, not taken as empty.
func TestBuildImageWantsAnEnvironment(t *testing.T) {
	if _, err := BuildImage(context.Background(), nil); err == nil || !strings.Contains(err.Error(), "os.Environ()") {
		t.Fatalf("BuildImage(nil) = %v, want an error naming os.Environ()", err)
	}
}
