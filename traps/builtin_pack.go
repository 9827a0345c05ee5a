package traps

import (
	"embed"
	"io/fs"
	"sync"
)

//go:embed packs/builtin
var builtinPackFS embed.FS

// builtinPack is the catalog's traps written as a pack (packs/builtin), loaded once: the same strict
// loader as a user's pack. A broken file there is a build defect, so it panics at first use (the
// catalog test loads it).
var builtinPack = sync.OnceValue(func() []Trap {
	sub, err := fs.Sub(builtinPackFS, "packs/builtin")
	if err != nil {
		panic("traps: the built-in pack: " + err.Error())
	}
	ts, err := LoadPackFS(sub, "traps/packs/builtin")
	if err != nil {
		panic("traps: the built-in pack does not load:\n" + err.Error())
	}
	return ts
})
