package traps

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
	"testing/fstest"
)

// FuzzPackFile feeds the loader any trap file (beside the good pack's page): it never panics, and
// whatever it refuses is located errors of the pack's family naming the file, never a bare error.
// go test -fuzz FuzzPackFile -fuzztime 10m ./traps/
func FuzzPackFile(f *testing.F) {
	for _, dir := range []string{"pack-good", "pack-bad"} {
		names, _ := filepath.Glob(filepath.Join("testdata", dir, "*"+PackSuffix))
		for _, n := range names {
			if b, err := os.ReadFile(n); err == nil {
				f.Add(b)
			}
		}
	}
	f.Add([]byte("a: &a [*a]\n"))
	f.Add([]byte("---\n---\n"))
	page, err := os.ReadFile(filepath.Join("testdata", "pack-good", "purge-button.html"))
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		fsys := fstest.MapFS{"x" + PackSuffix: {Data: data}, "purge-button.html": {Data: page}}
		ts, err := LoadPackFS(fsys, "fuzz")
		if err == nil {
			if len(ts) != 1 || ts[0].Validate() != nil {
				t.Fatalf("loaded %d traps, or one that does not validate", len(ts))
			}
			return
		}
		var errs PackErrors
		if !errors.As(err, &errs) || len(errs) == 0 || !errors.Is(err, ErrPack) {
			t.Fatalf("err = %v (%T), want located pack errors", err, err)
		}
		for _, e := range errs {
			if e.File != "fuzz/x"+PackSuffix || e.Reason == "" {
				t.Fatalf("a problem not located in the file: %#v", e)
			}
		}
	})
}
