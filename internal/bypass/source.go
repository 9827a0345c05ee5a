package bypass

import (
	"strings"

	"github.com/trapline/trapline/fixtures"
	"github.com/trapline/trapline/world"
)

// Sources resolves the world sources of bypass runs (world.Resolver): an id
// "bypass-<technique>-<layers>" (Technique.Trap) is the technique's mounts, whatever the layers (the
// layers change the run's setup, not its world).
type Sources struct{}

var _ world.Resolver = Sources{}

// ResolveFixtures returns the fixtures of a bypass run's source; ok is false for any other id.
func (Sources) ResolveFixtures(src world.Source) (fixtures.Config, bool, error) {
	if len(src.Bundle) > 0 || !strings.HasPrefix(src.ID, "bypass-") {
		return fixtures.Config{}, false, nil
	}
	for _, t := range All() {
		for _, l := range []Layers{BothOn, ProxyAlone, GateAlone, BothOff} {
			if tr := t.Trap(l); tr.ID == src.ID {
				return tr.Fixtures(), true, nil
			}
		}
	}
	return fixtures.Config{}, false, nil
}
