package main

import (
	"bytes"
	"go/format"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestTrapsNewScaffoldsAllOrNothing(t *testing.T) {
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "pages"), 0o755); err != nil {
		t.Fatal(err)
	}
	catalog, err := os.ReadFile("../../traps/catalog_new.go")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "catalog_new.go"), catalog, 0o644); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if code := run([]string{"traps", "new", "--dir", dir, "--category", "injection", "hidden-form"}, &out, &out); code != exitOK {
		t.Fatalf("exit %d: %s", code, out.String())
	}
	src, err := os.ReadFile(filepath.Join(dir, "hidden_form.go"))
	if err != nil {
		t.Fatal(err)
	}
	formatted, err := format.Source(src)
	if err != nil || !bytes.Equal(formatted, src) {
		t.Fatalf("scaffolded Go is not valid gofmt'd source (%v):\n%s", err, src)
	}
	for _, want := range []string{`ID:       "hidden-form"`, "Category: Injection", "func hiddenForm() Trap"} {
		if !strings.Contains(string(src), want) {
			t.Errorf("scaffold lacks %q", want)
		}
	}
	cat, _ := os.ReadFile(filepath.Join(dir, "catalog_new.go"))
	if !strings.Contains(string(cat), "\t\thiddenForm(),\n\t\t"+newTrapMarker) {
		t.Fatalf("catalog line missing:\n%s", cat)
	}
	if _, err := format.Source(cat); err != nil {
		t.Fatalf("catalog no longer parses: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "pages", "hidden-form.html")); err != nil {
		t.Fatal(err)
	}

	for _, args := range [][]string{
		{"traps", "new", "--dir", dir, "hidden-form"}, // exists
		{"traps", "new", "--dir", dir, "Bad_Name"},    // not kebab-case
		{"traps", "new", "--dir", dir, "--category", "x", "ok-name"},
		{"traps", "new", "--dir", t.TempDir(), "other-trap"}, // no catalog
	} {
		out.Reset()
		if code := run(args, &out, &out); code != exitUsage {
			t.Errorf("%v: exit %d, want %d (%s)", args, code, exitUsage, out.String())
		}
	}
	after, _ := os.ReadFile(filepath.Join(dir, "catalog_new.go"))
	if !bytes.Equal(after, cat) {
		t.Error("a failed scaffold changed the catalog")
	}
}
