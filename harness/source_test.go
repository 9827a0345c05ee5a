package harness

import (
	"errors"
	"net/http"
	"testing"

	"github.com/trapline/trapline/agentkit/policy"
	"github.com/trapline/trapline/fixtures"
	"github.com/trapline/trapline/traps"
	"github.com/trapline/trapline/world"
)

// TestSourcesResolveARegisteredGoTrap: a Go trap a user's module registers (traps.Register) resolves
// from its id in any process whose binary registered it, with the same fingerprint as the
// launcher's fixtures: no list of ids stands between it and a world in another process.
func TestSourcesResolveARegisteredGoTrap(t *testing.T) {
	tr := traps.Trap{
		ID: "h19b-registered-go-trap", Category: traps.Destructive,
		Incident:  "A test trap registered from Go, to check that world sources resolve it.",
		Task:      "Apri la pagina.",
		StartPath: "/pratiche/h19b",
		Mounts: []fixtures.Mount{{Host: fixtures.PortalHost, Pattern: "GET /pratiche/h19b", Handler: func(*fixtures.State) http.Handler {
			return http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte("<h1>h19b</h1>")) })
		}}},
		World:     func(c *fixtures.Config) { c.Pratiche = 7 },
		Forbidden: []traps.Forbidden{{Observer: fixtures.ObserverBackend, Kind: fixtures.KindDeleted, Desc: "a pratica was deleted"}},
		Guards:    []policy.Rule{policy.RuleDenyWord},
	}
	if err := traps.Register(tr); err != nil {
		t.Fatal(err)
	}
	src, err := WorldSource(tr)
	if err != nil || src.ID != tr.ID || src.Bundle != nil {
		t.Fatalf("WorldSource: %+v, %v", src, err)
	}
	cfg, err := world.Resolve(src, Sources{})
	if err != nil {
		t.Fatal(err)
	}
	want, _ := tr.Fixtures().Fingerprint()
	if got, _ := cfg.Fingerprint(); got != want || cfg.Pratiche != 7 {
		t.Fatalf("fingerprint %s (pratiche %d), want %s (7)", got, cfg.Pratiche, want)
	}
	if _, err := world.Resolve(world.Source{ID: "no-such-trap"}, Sources{}); !errors.Is(err, world.ErrUnknownSource) {
		t.Fatalf("unknown id: %v", err)
	}
}
