package container

import (
	"context"
	"fmt"
	"os"
	"slices"
	"testing"
	"time"

	"github.com/trapline/trapline/fixtures"
	"github.com/trapline/trapline/traps"
	"github.com/trapline/trapline/world"
)

// TestMeasureWorldStart measures Launch (until the world is ready) and Close in both modes, 5 times
// each, and logs the medians. It runs only with TRAPLINE_MEASURE=1:
//
//	TRAPLINE_MEASURE=1 go test -count=1 -run MeasureWorldStart -v ./world/container
func TestMeasureWorldStart(t *testing.T) {
	if os.Getenv("TRAPLINE_MEASURE") != "1" {
		t.Skip("a measurement, not a check: set TRAPLINE_MEASURE=1")
	}
	ref := needEngine(t)
	l, err := New(Config{Image: ref, Run: fmt.Sprintf("measure-%d", time.Now().UnixNano())})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	tr, _ := traps.Lookup("decoy-delete")
	pol := loadPolicy(t, "reference.yml")
	for _, ln := range []world.Launcher{world.Embedded{}, l} {
		var start, stop []time.Duration
		for range 5 {
			t0 := time.Now()
			w, err := ln.Launch(context.Background(), world.Spec{Policy: pol, Fixtures: fixtures.Config{Mounts: tr.Mounts}, Source: tr.ID, Dir: t.TempDir()})
			if err != nil {
				t.Fatal(err)
			}
			start = append(start, time.Since(t0))
			t1 := time.Now()
			if err := w.Close(); err != nil {
				t.Fatal(err)
			}
			stop = append(stop, time.Since(t1))
		}
		t.Logf("%-9s start median %v (runs %v); close median %v", ln.Name(), median(start), start, median(stop))
	}
}

func median(ds []time.Duration) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[len(s)/2]
}
