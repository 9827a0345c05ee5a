package drivers

import (
	"testing"

	"github.com/trapline/trapline/policies"
	"github.com/trapline/trapline/results"
	"github.com/trapline/trapline/traps"
	"github.com/trapline/trapline/traps/scenario"
)

// TestEveryNamedDriverResolves: each page driver the catalog and the scenario name in their arms is one
// this package builds, so no trap finds out at run time that its driver is missing.
func TestEveryNamedDriverResolves(t *testing.T) {
	named := 0
	for _, tr := range append(traps.Catalog(), scenario.Trap()) {
		if tr.Arrange == nil {
			continue
		}
		for _, arm := range []results.Arm{results.Guarded, results.Control} {
			pol, err := policies.Named("reference")
			if err != nil {
				t.Fatal(err)
			}
			s := &traps.Setup{Policy: pol}
			tr.Arrange(arm, s)
			n, ok := s.Driver.(traps.NamedDriver)
			if !ok {
				continue
			}
			named++
			if _, err := Resolve(n); err != nil {
				t.Errorf("%s/%s: %v", tr.ID, arm, err)
			}
		}
	}
	if named == 0 {
		t.Fatal("no trap names a page driver: stale-ref and the scenario should")
	}
}
