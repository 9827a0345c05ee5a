package bench

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/trapline/trapline/harness"
	"github.com/trapline/trapline/results"
	"github.com/trapline/trapline/traps"
)

// BenchmarkCatalogScale measures how the catalog's time grows with the number of traps: both arms of
// the first 10, the first 20 and all of the catalog's traps, run one after the other in one process
// with one browser (what one Ginkgo process does, without Ginkgo). Reported: seconds per catalog and
// seconds per arm; linear growth keeps the seconds per arm flat. Page-size growth is measured by
// BenchmarkPerAction (rows=10, 100, 500).
func BenchmarkCatalogScale(b *testing.B) {
	all := traps.Catalog()
	for _, n := range []int{10, 20, len(all)} {
		b.Run(fmt.Sprintf("traps=%d", n), func(b *testing.B) { benchCatalog(b, all[:n]) })
	}
}

func benchCatalog(b *testing.B, catalog []traps.Trap) {
	ref, perm := mustPolicy(b, "reference"), mustPolicy(b, "permissive")
	br := launchBrowser(b)
	opts := harness.Options{Browser: br, Guarded: ref, Control: perm, Trace: true}
	var total time.Duration
	for b.Loop() {
		opts.OutDir = b.TempDir()
		start := time.Now()
		for _, t := range catalog {
			for _, arm := range []results.Arm{results.Guarded, results.Control} {
				res, err := harness.Run(context.Background(), opts, t, arm)
				if err != nil {
					b.Fatalf("%s/%s: %v", t.ID, arm, err)
				}
				if pass, why := res.Passed(); !pass {
					b.Errorf("%s/%s failed its verdict (the timing still counts): %s", t.ID, arm, why)
				}
			}
		}
		total += time.Since(start)
	}
	secs := total.Seconds() / float64(b.N)
	b.ReportMetric(secs, "s/catalog")
	b.ReportMetric(secs/float64(2*len(catalog)), "s/arm")
}
