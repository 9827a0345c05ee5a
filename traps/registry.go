package traps

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing/fstest"
)

// Registry is one set of traps, in registration order, unique by id: what the harness runs, the CLI
// lists and selects from, and the container world rebuilds. Build one with NewRegistry (the built-in
// catalog plus the traps given to Register) and add packs with LoadPack. Safe for concurrent use.
type Registry struct {
	mu    sync.Mutex
	traps []Trap
}

// registered holds the Go traps a user's module adds with Register (usually from an init function).
var registered struct {
	mu    sync.Mutex
	traps []Trap
}

// Register adds Go traps to every registry NewRegistry makes afterwards, beside the built-in catalog
// and any pack: how a user's module ships a trap that needs Go (a custom handler or Arrange hook). It
// validates each trap and refuses an id that is already registered.
func Register(ts ...Trap) error {
	registered.mu.Lock()
	defer registered.mu.Unlock()
	for _, t := range ts {
		if err := t.Validate(); err != nil {
			return fmt.Errorf("register: %w", err)
		}
		if slices.ContainsFunc(registered.traps, func(o Trap) bool { return o.ID == t.ID }) {
			return fmt.Errorf("register: trap %q is already registered", t.ID)
		}
		registered.traps = append(registered.traps, t)
	}
	return nil
}

// NewRegistry returns a registry holding the built-in catalog, then the traps given to Register.
func NewRegistry() (*Registry, error) {
	r := &Registry{}
	if _, err := loadBuiltinPack(); err != nil {
		return nil, err // a PackErrors inside: file:line:column: field: reason, not a panic
	}
	if err := r.Add(Catalog()...); err != nil {
		return nil, err
	}
	registered.mu.Lock()
	extra := slices.Clone(registered.traps)
	registered.mu.Unlock()
	if err := r.Add(extra...); err != nil {
		return nil, err
	}
	return r, nil
}

// Add adds traps to r, refusing (and adding none of them) when one is invalid or its id is taken.
func (r *Registry) Add(ts ...Trap) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	ids := map[string]bool{}
	for _, t := range r.traps {
		ids[t.ID] = true
	}
	for _, t := range ts {
		if err := t.Validate(); err != nil {
			return err
		}
		if ids[t.ID] {
			where := "the registry"
			if t.Pack != nil {
				where += fmt.Sprintf(" (adding %s from %s)", t.Pack.File, t.Pack.Origin)
			}
			return fmt.Errorf("trap %q is already in %s", t.ID, where)
		}
		ids[t.ID] = true
	}
	r.traps = append(r.traps, ts...)
	return nil
}

// LoadPack loads the pack in dir (see the package function LoadPack) and adds its traps.
func (r *Registry) LoadPack(dir string) error {
	ts, err := LoadPack(dir)
	if err != nil {
		return err
	}
	if err := r.Add(ts...); err != nil {
		return fmt.Errorf("load trap pack %s: %w", dir, err)
	}
	return nil
}

// All returns every trap, in registration order.
func (r *Registry) All() []Trap {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.traps)
}

// Lookup returns the trap with the given id.
func (r *Registry) Lookup(id string) (Trap, error) {
	for _, t := range r.All() {
		if t.ID == id {
			return t, nil
		}
	}
	return Trap{}, fmt.Errorf("traps: no trap %q in the registry (see trapline traps list)", id)
}

// Select resolves a comma-separated list of trap ids and labels (category, trap:ID) in registration
// order; an empty list is every trap, and an item that selects nothing is an error.
func (r *Registry) Select(list string) ([]Trap, error) {
	all := r.All()
	if strings.TrimSpace(list) == "" {
		return all, nil
	}
	want := map[string]bool{}
	for _, item := range strings.Split(list, ",") {
		item = strings.TrimSpace(item)
		if item == "" {
			continue
		}
		found := false
		for _, t := range all {
			if t.ID == item || slices.Contains(t.Labels(), item) {
				found, want[t.ID] = true, true
			}
		}
		if !found {
			return nil, fmt.Errorf("%q is no trap id or label in the registry (see trapline traps list)", item)
		}
	}
	var out []Trap
	for _, t := range all {
		if want[t.ID] {
			out = append(out, t)
		}
	}
	return out, nil
}

// Bundle serialises a pack trap's source (its trap file and pages) for a world in another process;
// it fails for a Go trap, which cannot cross a process boundary.
func (t Trap) Bundle() ([]byte, error) {
	if t.Pack == nil {
		return nil, fmt.Errorf("trap %s is Go code, not a pack: it has no bundle", t.ID)
	}
	return json.Marshal(t.Pack)
}

// FromBundle rebuilds the trap a Bundle serialised, loading it as strictly as LoadPack does.
func FromBundle(b []byte) (Trap, error) {
	var src PackSource
	if err := json.Unmarshal(b, &src); err != nil {
		return Trap{}, fmt.Errorf("read trap bundle: %w", err)
	}
	fsys := fstest.MapFS{}
	for name, content := range src.Files {
		fsys[name] = &fstest.MapFile{Data: []byte(content), Mode: 0o444}
	}
	if _, ok := src.Files[src.File]; !ok {
		return Trap{}, fmt.Errorf("read trap bundle: its trap file %q is not in it", src.File)
	}
	t, errs := loadTrapFile(fsys, src.Origin, src.File)
	if len(errs) > 0 {
		return Trap{}, fmt.Errorf("read trap bundle: %w", errs)
	}
	return t, nil
}
