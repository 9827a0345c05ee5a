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
		{[]string{"--traps", "decoy-delete", "--probe-cmd", "./count"}, "none of the selected traps has a state probe"},
		{[]string{"--upstream", "http://127.0.0.1:1", "--upstream-host", "app.example.test", "--upstream-ca", "ca.pem"}, "https:// --upstream"},
	} {
		if _, err := parseRun(tc.args); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: want %q, got %v", tc.args, tc.want, err)
		}
	}
	cfg, err := parseRun([]string{"--traps-dir", "../../examples/user-app/pack", "--upstream-image", "app:1", "--upstream-port", "9090",
		"--upstream-host", "portale.example.test", "--probe-cmd", "./count  --json"})
	if err != nil {
		t.Fatal(err)
	}
	if cfg.app.image != "app:1" || cfg.app.port != "9090" || !slices.Equal(cfg.app.probeCommand(), []string{"./count", "--json"}) {
		t.Fatalf("%+v", cfg.app)
	}
	cfg, err = parseRun([]string{"--upstream", "https://127.0.0.1:8443", "--upstream-host", "portale.example.test", "--upstream-ca", "app.pem"})
	if err != nil {
		t.Fatal(err)
	}
	if ups := cfg.upstreams(); len(ups) != 1 || ups[0].CAFile != "app.pem" || ups[0].URL != "https://127.0.0.1:8443" {
		t.Errorf("upstreams = %+v, want the https app with its CA file", ups)
	}
}

// TestProvenanceHashesAnEmbeddedPolicy: the default --policy reference is a name, not a file; its
// provenance hash is the embedded YAML's, from any working folder.
func TestProvenanceHashesAnEmbeddedPolicy(t *testing.T) {
	t.Chdir(t.TempDir())
	sum, err := policySHA256("reference")
	if err != nil || len(sum) != 64 {
		t.Fatalf("%q %v", sum, err)
	}
	if _, err := policySHA256("no-such-policy"); err == nil {
		t.Fatal("a policy that is neither a file nor embedded was hashed")
	}
}
