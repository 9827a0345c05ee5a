package browser

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestExtensionDirs(t *testing.T) {
	ok := t.TempDir()
	if err := os.WriteFile(filepath.Join(ok, "manifest.json"), []byte(`{"manifest_version":3}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if got, err := extensionDirs([]string{ok, ok}); err != nil || got != ok+","+ok {
		t.Fatalf("extensionDirs = %q, %v", got, err)
	}
	empty := t.TempDir()
	if _, err := extensionDirs([]string{empty}); err == nil || !strings.Contains(err.Error(), empty) || !strings.Contains(err.Error(), "manifest.json") {
		t.Fatalf("a folder without manifest.json must be an error naming it, got %v", err)
	}
	comma := filepath.Join(t.TempDir(), "a,b")
	if _, err := extensionDirs([]string{comma}); err == nil || !strings.Contains(err.Error(), "comma") {
		t.Fatalf("a path with a comma must be an error, got %v", err)
	}
}
