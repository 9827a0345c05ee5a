package agenttools

import (
	"errors"
	"io/fs"
	"os"
	"slices"
	"testing"

	"github.com/trapline/trapline/harness"
)

// TestToolEnvironIsTheGivenOne: a tool inherits the run's Env.Environ without its proxy variables,
// never the test process's own, and a nil one is refused.
func TestToolEnvironIsTheGivenOne(t *testing.T) {
	t.Setenv("TRAPLINE_TEST_MARK", "process")
	env := harness.Env{Environ: []string{"TRAPLINE_TEST_MARK=given", "HTTPS_PROXY=http://corporate.example:3128"}, ProxyURL: "http://127.0.0.1:5"}
	got, err := toolEnviron(env, []string{"EXTRA=1"})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(got, "TRAPLINE_TEST_MARK=given") || slices.Contains(got, "TRAPLINE_TEST_MARK=process") ||
		slices.Contains(got, "HTTPS_PROXY=http://corporate.example:3128") || !slices.Contains(got, "HTTPS_PROXY=http://127.0.0.1:5") || !slices.Contains(got, "EXTRA=1") {
		t.Fatalf("toolEnviron = %v", got)
	}
	if _, err := toolEnviron(harness.Env{}, nil); !errors.Is(err, harness.ErrNoEnviron) {
		t.Fatalf("nil Environ: %v, want harness.ErrNoEnviron", err)
	}
}

// TestDefaultBrowserEnvLeavesTheUsersChoice: the default Chromium is set only when neither the command
// line nor the inherited environment chose one.
func TestDefaultBrowserEnvLeavesTheUsersChoice(t *testing.T) {
	if _, err := os.Stat("/usr/bin/chromium"); err != nil {
		// Only a missing Chromium is a skip, and never where CI requires one (.ci/run sets
		// TRAPLINE_REQUIRE_CHROMIUM): any other stat error, or a missing one there, fails.
		if !errors.Is(err, fs.ErrNotExist) || os.Getenv("TRAPLINE_REQUIRE_CHROMIUM") != "" {
			t.Fatalf("/usr/bin/chromium: %v", err)
		}
		t.Skip("no /usr/bin/chromium: the default is never set")
	}
	const def = "AGENT_BROWSER_EXECUTABLE_PATH=/usr/bin/chromium"
	if got := defaultBrowserEnv(nil, []string{"HOME=/h"}); !slices.Contains(got, def) {
		t.Errorf("nothing chosen: %v, want %s", got, def)
	}
	if got := defaultBrowserEnv(nil, []string{"AGENT_BROWSER_EXECUTABLE_PATH=/opt/chrome"}); slices.Contains(got, def) {
		t.Errorf("chosen in the environment: %v", got)
	}
	if got := defaultBrowserEnv([]string{"--executable-path", "/opt/chrome"}, nil); slices.Contains(got, def) {
		t.Errorf("chosen on the command line: %v", got)
	}
	if got := defaultBrowserEnv(nil, []string{"AGENT_BROWSER_EXECUTABLE_PATH="}); !slices.Contains(got, def) {
		t.Errorf("empty counts as unset: %v", got)
	}
}
