package main

import (
	"slices"
	"strings"
	"testing"
)

// TestRunUserAppFlags: --upstream-image needs --upstream-host, excludes --upstream and the container
// world; --probe-cmd is split on spaces into the probe's argv.
func TestRunUserAppFlags(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--upstream", "http://127.0.0.1:1", "--upstream-image", "app:1", "--upstream-host", "app.example.test"}, "give one"},
		{[]string{"--upstream-image", "app:1"}, "go together"},
		{[]string{"--upstream-host", "app.example.test"}, "go together"},
		{[]string{"--upstream-image", "app:1", "--upstream-host", "app.example.test", "--world", "container"}, "embedded world only"},
	} {
		if _, err := parseRun(tc.args); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: want %q, got %v", tc.args, tc.want, err)
		}
	}
	cfg, err := parseRun([]string{"--upstream-image", "app:1", "--upstream-port", "9090", "--upstream-host", "app.example.test", "--probe-cmd", "./count  --json"})
	if err != nil {
		t.Fatal(err)
	}
	if cfg.app.image != "app:1" || cfg.app.port != "9090" || !slices.Equal(cfg.app.probeCommand(), []string{"./count", "--json"}) {
		t.Fatalf("%+v", cfg.app)
	}
}
