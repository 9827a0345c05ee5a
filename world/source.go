package world

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/trapline/trapline/fixtures"
)

// ErrUnknownSource is returned by Resolve when no resolver knows a source.
var ErrUnknownSource = errors.New("unknown world source")

// Source says where a world's fixtures come from, in a form that crosses a process boundary. Both
// launchers take it in Spec: the embedded launcher serves Spec.Fixtures as built (handlers are code);
// a launcher in another process (internal/container) ships the Source as JSON, the sites there
// rebuild the fixtures from it with Resolve and check them against Spec.Fixtures' fingerprint.
type Source struct {
	// ID names the source: the trap's id. A Go trap's mounts are code, so a process that has the
	// trap in its binary (the built-in catalog, a traps.Register'd trap, a bypass run) resolves the
	// id; nothing lists ids by hand.
	ID string `json:"id"`
	// Bundle is the source as data (a trap pack's trap file and pages, traps.Trap.Bundle): the sites
	// rebuild it from the bytes alone, whatever their binary holds.
	Bundle json.RawMessage `json:"bundle,omitempty"`
}

// Resolver rebuilds the fixtures of a Source in a process that has only the binary (a container
// world's sites). Each package that makes traps resolves its own: traps.Registry its traps, pack
// bundles and the scenario; internal/bypass its runs.
type Resolver interface {
	// ResolveFixtures returns the fixtures of src; ok is false when src is none of its.
	ResolveFixtures(src Source) (cfg fixtures.Config, ok bool, err error)
}

// Resolve asks each resolver in turn for src's fixtures; the first that knows it answers. None
// knowing it is ErrUnknownSource.
func Resolve(src Source, rs ...Resolver) (fixtures.Config, error) {
	for _, r := range rs {
		cfg, ok, err := r.ResolveFixtures(src)
		if err != nil {
			return fixtures.Config{}, fmt.Errorf("world source %q: %w", src.ID, err)
		}
		if ok {
			return cfg, nil
		}
	}
	return fixtures.Config{}, fmt.Errorf("world source %q: %w (no trap, pack bundle, scenario or bypass run in this binary has that id)", src.ID, ErrUnknownSource)
}

// ReadSource decodes a Source written by MarshalSource (the file a container launcher ships); name is
// used in errors.
func ReadSource(b []byte, name string) (Source, error) {
	var v struct {
		V int `json:"v"`
		Source
	}
	if err := json.Unmarshal(b, &v); err != nil {
		return Source{}, fmt.Errorf("read world source %s: %w", name, err)
	}
	if v.V != SourceVersion {
		return Source{}, fmt.Errorf("read world source %s: version %d, want %d", name, v.V, SourceVersion)
	}
	if v.ID == "" {
		return Source{}, fmt.Errorf("read world source %s: field id is empty", name)
	}
	return v.Source, nil
}

// SourceVersion is the version of the JSON MarshalSource writes.
const SourceVersion = 1

// MarshalSource encodes src, versioned, for a process boundary.
func MarshalSource(src Source) ([]byte, error) {
	return json.Marshal(struct {
		V int `json:"v"`
		Source
	}{SourceVersion, src})
}
