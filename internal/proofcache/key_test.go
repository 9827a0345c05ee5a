package proofcache

import (
	"reflect"
	"strings"
	"testing"

	"github.com/trapline/trapline/traps"
)

func sampleInputs() Inputs {
	return Inputs{Trap: "decoy-delete", TrapFiles: "go:decoy-delete", Arms: []string{"control", "guarded"},
		GuardedPolicy: "g1", ControlPolicy: "c1", Build: "b1", Chromium: "131.0", Driver: "1.49.1", World: "embedded",
		Settings: "trace=on video=off", StorageState: "none"}
}

// TestEveryInputChangesTheKey: a change to any one input, each field of Inputs in turn, gives another
// key; the same inputs give the same key.
func TestEveryInputChangesTheKey(t *testing.T) {
	base := sampleInputs()
	k0, err := base.Key()
	if err != nil {
		t.Fatal(err)
	}
	if again, _ := sampleInputs().Key(); again != k0 {
		t.Fatalf("the same inputs gave %s and %s", k0, again)
	}
	typ := reflect.TypeOf(base)
	for i := range typ.NumField() {
		in := sampleInputs()
		f := reflect.ValueOf(&in).Elem().Field(i)
		switch f.Kind() {
		case reflect.String:
			f.SetString(f.String() + "x")
		case reflect.Slice:
			f.Set(reflect.Append(f, reflect.ValueOf("blackbox")))
		default:
			t.Fatalf("field %s: a kind (%s) this test does not change: add it", typ.Field(i).Name, f.Kind())
		}
		k, err := in.Key()
		if err != nil {
			t.Fatal(err)
		}
		if k == k0 {
			t.Errorf("changing %s left the key %s", typ.Field(i).Name, k)
		}
		if got := in.Changed(base); len(got) != 1 || !strings.HasPrefix(typ.Field(i).Tag.Get("json"), got[0]) {
			t.Errorf("changing %s: Changed says %v", typ.Field(i).Name, got)
		}
	}
}

// TestAKeyNeedsEveryInput: an input left empty is an error naming it, never a key that ignores it.
func TestAKeyNeedsEveryInput(t *testing.T) {
	in := sampleInputs()
	in.Chromium = ""
	if _, err := in.Key(); err == nil || !strings.Contains(err.Error(), "chromium") {
		t.Fatalf("a key without the Chromium version: %v", err)
	}
}

// TestTrapFilesAreTheFiles: a pack trap's digest changes with any of its files and not with where the
// pack lies; a Go trap's is its id (its code is trapline's build).
func TestTrapFilesAreTheFiles(t *testing.T) {
	pack := func(page, origin string) traps.Trap {
		return traps.Trap{ID: "my-trap", Pack: &traps.PackSource{File: "my-trap.trap.yml", Origin: origin,
			Files: map[string]string{"my-trap.trap.yml": "id: my-trap\n", "page.html": page}}}
	}
	a, err := TrapFiles(pack("<p>one</p>", "/a"))
	if err != nil {
		t.Fatal(err)
	}
	if b, _ := TrapFiles(pack("<p>one</p>", "/elsewhere")); b != a {
		t.Errorf("the same files in another folder: %s, %s", a, b)
	}
	if c, _ := TrapFiles(pack("<p>two</p>", "/a")); c == a {
		t.Errorf("a changed page left the digest %s", a)
	}
	if g, _ := TrapFiles(traps.Trap{ID: "decoy-delete"}); g != "go:decoy-delete" {
		t.Errorf("a Go trap: %q", g)
	}
}
