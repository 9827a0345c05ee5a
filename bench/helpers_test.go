package bench

import (
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
	br, err := browser.Launch(browser.Options{})
	if err != nil {
		b.Skipf("no browser: %v", err)
	}
	b.Cleanup(func() { _ = br.Close() })
	return br
}
