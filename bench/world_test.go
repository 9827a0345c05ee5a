package bench

import (
	"testing"

	"github.com/trapline/trapline/agentkit/policy"
	"github.com/trapline/trapline/fixtures"
	"github.com/trapline/trapline/world"
)

// BenchmarkWorldStartEmbedded starts and closes one embedded world (sites, canaries and proxy on
// loopback), as every trap arm does. Target: under 200 ms.
func BenchmarkWorldStartEmbedded(b *testing.B) {
	pol, err := policy.Load("../policies/reference.yml")
	if err != nil {
		b.Fatal(err)
	}
	dir := b.TempDir()
	for b.Loop() {
		w, err := world.Start(world.Spec{Policy: pol, Fixtures: fixtures.Config{}, Dir: dir})
		if err != nil {
			b.Fatal(err)
		}
		if err := w.Close(); err != nil {
			b.Fatal(err)
		}
	}
}
