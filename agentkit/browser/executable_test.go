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
		got, err := Executable(exe, []string{ChromiumEnv + "=/nowhere/chrome"})
		if err != nil || got != exe {
			t.Fatalf("Executable(%q) = %q, %v; want %q", exe, got, err, exe)
		}
	})
	t.Run("the environment names a path", func(t *testing.T) {
		if got, err := Executable("", []string{ChromiumEnv + "=" + exe}); err != nil || got != exe {
			t.Fatalf("Executable = %q, %v; want %q", got, err, exe)
		}
	})
	t.Run("a missing binary is an error naming the variable, not a fallback", func(t *testing.T) {
		_, err := Executable("", []string{ChromiumEnv + "=" + filepath.Join(dir, "missing")})
		if err == nil || !strings.Contains(err.Error(), ChromiumEnv) {
			t.Fatalf("err = %v; want an error naming %s", err, ChromiumEnv)
		}
	})
	t.Run("a file that is not executable is refused", func(t *testing.T) {
		if _, err := Executable(plain, []string{}); err == nil {
			t.Fatal("a non-executable file was accepted")
		}
	})
	t.Run("only the environment passed counts, not the process's", func(t *testing.T) {
		t.Setenv(ChromiumEnv, filepath.Join(dir, "missing"))
		if got, err := Executable("", []string{"A=1", ChromiumEnv + "=" + filepath.Join(dir, "missing"), ChromiumEnv + "=" + exe}); err != nil || got != exe {
			t.Fatalf("Executable = %q, %v; want %q (the last value in the list)", got, err, exe)
		}
	})
	t.Run("names", func(t *testing.T) {
		for name, want := range map[string]string{"chromium": DefaultChromium, "headless-shell": HeadlessShell} {
			got, err := Executable("", []string{ChromiumEnv + "=" + name})
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
