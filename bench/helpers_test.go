package bench

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/trapline/trapline/agentkit/browser"
	"github.com/trapline/trapline/agentkit/policy"
)

// mustPolicy loads policies/<name>.yml or stops the benchmark.
func mustPolicy(b *testing.B, name string) *policy.Policy {
	b.Helper()
	p, err := policy.Load(filepath.Join("..", "policies", name+".yml"))
	if err != nil {
		b.Fatal(err)
	}
	return p
}

// launchBrowser starts Chromium behind its sink proxy for the benchmark and closes it after; without a
// browser the benchmark is skipped, saying why.
func launchBrowser(b *testing.B) *browser.Browser {
	b.Helper()
	br, err := browser.Launch(browser.Options{Environ: os.Environ()})
	if err != nil {
		launchFailed(b, "", err)
	}
	b.Cleanup(func() { _ = br.Close() })
	return br
}

// launchFailed ends a benchmark whose browser (exe; "" for the default) did not launch: skipped when
// no such browser is installed (a missing prerequisite, make setup), failed otherwise. A browser that
// is there but does not start is a broken set-up, and a skip would pass for a result.
func launchFailed(b *testing.B, exe string, err error) {
	b.Helper()
	if _, missing := browser.Executable(exe, os.Environ()); missing != nil {
		b.Skipf("no browser (make setup): %v", missing)
	}
	b.Fatalf("launch the browser %s: %v", exe, err)
}
