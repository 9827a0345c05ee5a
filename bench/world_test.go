package bench

import (
	"context"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/trapline/trapline/fixtures"
	"github.com/trapline/trapline/internal/container"
	"github.com/trapline/trapline/world"
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

// BenchmarkWorldStartContainer starts and closes one container world (the trap decoy-delete: the
// sites container on an internal network, the proxy container publishing one port on
// 127.0.0.1), as every arm does in container mode, until each is ready and after each is removed. Two
// ways side by side, interleaved with the order rotating: container.Config.OverlapStart (the proxy
// starts while the sites get ready) and Launch's default (the sites ready, then the proxy). Reported: ms per start+close of each, their ratio and the machine's load. The
// image is built once, before the timer. Skipped when no Docker engine answers (make setup-docker).
func BenchmarkWorldStartContainer(b *testing.B) {
	ctx := context.Background()
	container.Setup(container.EngineFromEnv(os.Getenv))
	if err := container.EngineHealth(ctx); err != nil {
		b.Skipf("no Docker engine: %v", err)
	}
	image, err := container.BuildImage(ctx, os.Environ())
	if err != nil {
		b.Fatal(err)
	}
	run := fmt.Sprintf("bench-%d-%d", time.Now().UnixNano(), os.Getpid())
	var launchers []*container.Launcher
	for _, overlap := range []bool{true, false} {
		l, err := container.New(container.Config{Image: image, Run: run, OverlapStart: overlap})
		if err != nil {
			b.Fatal(err)
		}
		launchers = append(launchers, l)
	}
	b.Cleanup(func() {
		for _, l := range launchers {
			if err := l.Close(); err != nil {
				b.Error(err)
			}
		}
		if left, err := container.List(ctx, run); err != nil || len(left) > 0 {
			b.Errorf("left behind: %v (%v)", left, err)
		}
	})
	pol := mustPolicy(b, "reference")
	tr, ok := findTrap("decoy-delete")
	if !ok {
		b.Fatal("no trap decoy-delete")
	}
	spent := make([]time.Duration, len(launchers))
	load, cpu := loadAvg(), startCPU()
	round := 0
	for b.Loop() {
		for k := range launchers {
			i := (k + round) % len(launchers)
			start := time.Now()
			w, err := launchers[i].Launch(ctx, world.Spec{Policy: pol, Fixtures: fixtures.Config{Mounts: tr.Mounts}, Source: world.Source{ID: tr.ID}, Dir: b.TempDir()})
			if err != nil {
				b.Fatal(err)
			}
			if err := w.Close(); err != nil {
				b.Fatal(err)
			}
			spent[i] += time.Since(start)
		}
		round++
	}
	ms := func(i int) float64 { return float64(spent[i].Milliseconds()) / float64(round) }
	b.ReportMetric(ms(0), "overlapped-ms")
	b.ReportMetric(ms(1), "sequential-ms")
	b.ReportMetric(ms(0)/ms(1), "overlapped/sequential")
	b.ReportMetric(cpu.share(), "cpu-busy-%")
	b.ReportMetric(load, "loadavg1")
}
