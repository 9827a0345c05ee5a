package browser

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestExecutable(t *testing.T) {
	dir := t.TempDir()
	exe := filepath.Join(dir, "chrome")
	if err := os.WriteFile(exe, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	plain := filepath.Join(dir, "plain")
	if err := os.WriteFile(plain, nil, 0o644); err != nil {
		t.Fatal(err)
	}

	t.Run("explicit wins over the environment", func(t *testing.T) {
		t.Setenv(ChromiumEnv, "/nowhere/chrome")
		got, err := Executable(exe)
		if err != nil || got != exe {
			t.Fatalf("Executable(%q) = %q, %v; want %q", exe, got, err, exe)
		}
	})
	t.Run("the environment names a path", func(t *testing.T) {
		t.Setenv(ChromiumEnv, exe)
		if got, err := Executable(""); err != nil || got != exe {
			t.Fatalf("Executable = %q, %v; want %q", got, err, exe)
		}
	})
	t.Run("a missing binary is an error naming the variable, not a fallback", func(t *testing.T) {
		t.Setenv(ChromiumEnv, filepath.Join(dir, "missing"))
		_, err := Executable("")
		if err == nil || !strings.Contains(err.Error(), ChromiumEnv) {
			t.Fatalf("err = %v; want an error naming %s", err, ChromiumEnv)
		}
	})
	t.Run("a file that is not executable is refused", func(t *testing.T) {
		if _, err := Executable(plain); err == nil {
			t.Fatal("a non-executable file was accepted")
		}
	})
	t.Run("names", func(t *testing.T) {
		for name, want := range map[string]string{"chromium": DefaultChromium, "headless-shell": HeadlessShell} {
			t.Setenv(ChromiumEnv, name)
			got, err := Executable("")
			if _, statErr := os.Stat(want); statErr != nil {
				if err == nil {
					t.Errorf("%s: no binary at %s, yet no error", name, want)
				}
				continue
			}
			if err != nil || got != want {
				t.Errorf("%s: Executable = %q, %v; want %q", name, got, err, want)
			}
		}
	})
}
