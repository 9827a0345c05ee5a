package main

import (
	"slices"
	"strings"
	"testing"

	"github.com/trapline/trapline/fixtures"
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

// TestRunSeveralUpstreams: --upstream HOST=URL is repeatable beside the single URL form; a host given
// twice, one of the world's own, a bad URL or two bare URLs are refused naming the value; --reset-cmd
// reaches the harness as argv.
func TestRunSeveralUpstreams(t *testing.T) {
	cfg, err := parseRun([]string{"--upstream", "todo.example.test=http://127.0.0.1:8081", "--upstream", "http://127.0.0.1:8080",
		"--upstream-host", "portale.example.test", "--upstream", "api.example.test=http://127.0.0.1:8082/", "--reset-cmd", "./reset.sh  --seed 3"})
	if err != nil {
		t.Fatal(err)
	}
	want := []fixtures.Upstream{{Host: "todo.example.test", URL: "http://127.0.0.1:8081"}, {Host: "portale.example.test", URL: "http://127.0.0.1:8080"},
		{Host: "api.example.test", URL: "http://127.0.0.1:8082/"}}
	if ups := cfg.upstreams(); !slices.Equal(ups, want) {
		t.Fatalf("upstreams = %+v, want %+v", ups, want)
	}
	if got := cfg.app.resetCommand(); !slices.Equal(got, []string{"./reset.sh", "--seed", "3"}) {
		t.Fatalf("reset command %q", got)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--upstream", "a.example.test=http://127.0.0.1:1", "--upstream", "a.example.test=http://127.0.0.1:2"}, `host "a.example.test" is given twice`},
		{[]string{"--upstream", "portale.interno.test=http://127.0.0.1:1"}, "one of the world's own sites"},
		{[]string{"--upstream", "a.example.test=ftp://x"}, "not an http:// or https:// URL"},
		{[]string{"--upstream", "Not_A_Host=http://127.0.0.1:1"}, "want a lower-case host name"},
		{[]string{"--upstream", "127.0.0.1:8080"}, "want HOST=URL"},
		{[]string{"--upstream", "http://127.0.0.1:1", "--upstream", "http://127.0.0.1:2", "--upstream-host", "a.example.test"}, "one bare URL at most"},
	} {
		if _, err := parseRun(tc.args); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: err = %v, want %q", tc.args, err, tc.want)
		}
	}
}
