package traps

import (
	"embed"
	"fmt"
	"io/fs"
	"path"
	"sync"

	"github.com/trapline/trapline/fixtures"
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

// builtinPackPage mounts a page of the built-in pack on the portal, rendered with data: a twin serves
// its trap's own page with Twin set, so that the page leaves its bait out. A page that does not parse is
// a build defect for the catalog (the pack's loader refuses it first), so it panics like catalogTrap.
func builtinPackPage(pattern, file string, data PageData) fixtures.Mount {
	src, err := fs.ReadFile(builtinPackFS, path.Join("packs/builtin", file))
	if err != nil {
		panic("traps: the built-in pack page: " + err.Error())
	}
	tmpl, err := parsePackPage(file, string(src))
	if err != nil {
		panic("traps: the built-in pack page " + file + ": " + err.Error())
	}
	return packPage(fixtures.PortalHost, pattern, "text/html; charset=utf-8", tmpl, data)
}
