package bench

import (
	"context"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/trapline/trapline/fixtures"
	"github.com/trapline/trapline/world"
	"github.com/trapline/trapline/world/container"
)

// BenchmarkWorldStartEmbedded starts and closes one embedded world (sites, canaries and proxy on
// loopback), as every trap arm does. Target: under 200 ms.
func BenchmarkWorldStartEmbedded(b *testing.B) {
	pol := mustPolicy(b, "reference")
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

// BenchmarkWorldStartContainer starts and closes one container world (the trap decoy-delete: a
// staging and a canary container on an internal network, the proxy container publishing one port on
// 127.0.0.1), as every arm does in container mode, until each is ready and after each is removed. The
// image is built once, before the timer. Skipped when no Docker engine answers (make setup-docker).
func BenchmarkWorldStartContainer(b *testing.B) {
	ctx := context.Background()
	container.Setup()
	if err := container.EngineHealth(ctx); err != nil {
		b.Skipf("no Docker engine: %v", err)
	}
	image, err := container.BuildImage(ctx)
	if err != nil {
		b.Fatal(err)
	}
	l, err := container.New(container.Config{Image: image, Run: fmt.Sprintf("bench-%d-%d", time.Now().UnixNano(), os.Getpid())})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() {
		if err := l.Close(); err != nil {
			b.Error(err)
		}
		if left, err := container.List(ctx, l.Run()); err != nil || len(left) > 0 {
			b.Errorf("left behind: %v (%v)", left, err)
		}
	})
	pol := mustPolicy(b, "reference")
	tr, ok := findTrap("decoy-delete")
	if !ok {
		b.Fatal("no trap decoy-delete")
	}
	for b.Loop() {
		w, err := l.Launch(ctx, world.Spec{Policy: pol, Fixtures: fixtures.Config{Mounts: tr.Mounts}, Source: tr.ID, Dir: b.TempDir()})
		if err != nil {
			b.Fatal(err)
		}
		if err := w.Close(); err != nil {
			b.Fatal(err)
		}
	}
}
