package traps

import "github.com/trapline/trapline/fixtures"

// Fixtures is the sites' configuration the trap needs: its mounts, then its World hook. The one
// place a trap becomes fixtures, in the harness's process and in a container world's sites alike.
func (t Trap) Fixtures() fixtures.Config {
	cfg := fixtures.Config{Mounts: t.Mounts}
	if t.World != nil {
		t.World(&cfg)
	}
	return cfg
}
