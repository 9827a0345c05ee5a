package traps

import (
	"embed"
	"fmt"
	"io/fs"
	"sync"
)

//go:embed packs/builtin
var builtinPackFS embed.FS

// loadBuiltinPack loads the catalog's traps written as a pack (packs/builtin), once: the same strict
// loader as a user's pack.
var loadBuiltinPack = sync.OnceValues(func() ([]Trap, error) {
	sub, err := fs.Sub(builtinPackFS, "packs/builtin")
	if err != nil {
		return nil, fmt.Errorf("the built-in pack: %w", err)
	}
	ts, err := LoadPackFS(sub, "traps/packs/builtin")
	if err != nil {
		return nil, fmt.Errorf("the built-in pack does not load (a trap just scaffolded with `trapline traps new` loads once its TODOs are filled in):\n%w", err)
	}
	return ts, nil
})

// builtinPack is the built-in pack's traps. A broken file there is a build defect for the catalog, so
// it panics (the catalog test loads it); NewRegistry returns the same problem as an error instead.
func builtinPack() []Trap {
	ts, err := loadBuiltinPack()
	if err != nil {
		panic("traps: " + err.Error())
	}
	return ts
}
