package harness

import (
	"fmt"

	"github.com/trapline/trapline/fixtures"
	"github.com/trapline/trapline/traps"
	"github.com/trapline/trapline/traps/scenario"
	"github.com/trapline/trapline/world"
)

// WorldSource is the world.Source of a trap's run: its id, and for a pack trap its bundle (the trap
// as data, which a world in another process rebuilds from the bytes alone).
func WorldSource(trap traps.Trap) (world.Source, error) {
	src := world.Source{ID: trap.ID}
	if trap.Pack != nil {
		b, err := trap.Bundle()
		if err != nil {
			return world.Source{}, err
		}
		src.Bundle = b
	}
	return src, nil
}

// Sources resolves world sources against a trap registry (world.Resolver): a bundle is rebuilt with
// traps.FromBundle, whatever the registry holds; an id is a trap of the registry (the catalog,
// traps.Register'd Go traps, loaded packs) or the headline scenario. It is what a container world's
// sites use, so any trap the binary's registry has reaches a container world without a list by id.
type Sources struct {
	// Registry holds the traps; nil means traps.NewRegistry().
	Registry *traps.Registry
}

var _ world.Resolver = Sources{}

// ResolveFixtures returns src's fixtures; ok is false when src is no trap of the registry.
func (s Sources) ResolveFixtures(src world.Source) (fixtures.Config, bool, error) {
	if len(src.Bundle) > 0 {
		t, err := traps.FromBundle(src.Bundle)
		if err != nil {
			return fixtures.Config{}, false, err
		}
		if t.ID != src.ID {
			return fixtures.Config{}, false, fmt.Errorf("the bundle holds trap %q, not %q", t.ID, src.ID)
		}
		return t.Fixtures(), true, nil
	}
	if sc := scenario.Trap(); sc.ID == src.ID {
		return sc.Fixtures(), true, nil
	}
	reg := s.Registry
	if reg == nil {
		var err error
		if reg, err = traps.NewRegistry(); err != nil {
			return fixtures.Config{}, false, err
		}
	}
	t, err := reg.Lookup(src.ID)
	if err != nil {
		return fixtures.Config{}, false, nil
	}
	return t.Fixtures(), true, nil
}
