package browser

import (
	"context"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestRendererWrapperArgs(t *testing.T) {
	dir := t.TempDir()
	origins := []string{"http://portale.interno.test", "http://other.test:8080"}
	t.Run("chromium needs no wrapper", func(t *testing.T) {
		args, err := rendererWrapperArgs(DefaultChromium, origins, dir)
		if err != nil || args != nil {
			t.Fatalf("args, err = %v, %v; want nil, nil", args, err)
		}
	})
	t.Run("the headless shell gets a wrapper appending the switch", func(t *testing.T) {
		args, err := rendererWrapperArgs(HeadlessShell, origins, dir)
		if err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(dir, rendererWrapperName)
		if len(args) != 1 || args[0] != "--renderer-cmd-prefix=/bin/sh "+path {
			t.Fatalf("args = %v", args)
		}
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		want := `exec "$@" '--unsafely-treat-insecure-origin-as-secure=http://portale.interno.test,http://other.test:8080'`
		if !strings.Contains(string(b), want) {
			t.Fatalf("wrapper:\n%s\nwant the line %s", b, want)
		}
	})
	t.Run("origins that could break the quoting are refused", func(t *testing.T) {
		for _, o := range []string{"http://a.test'; rm -rf /'", "ftp://a.test", "portale.interno.test", "http://a.test b", "http://a.test,http://b.test"} {
			if _, err := rendererWrapperArgs(HeadlessShell, []string{o}, dir); err == nil {
				t.Errorf("origin %q accepted", o)
			}
		}
	})
	t.Run("a folder with a space is refused (Chromium splits the prefix at spaces)", func(t *testing.T) {
		spaced := filepath.Join(dir, "a b")
		if _, err := rendererWrapperArgs(HeadlessShell, origins, spaced); err == nil {
			t.Fatal("a path with a space was accepted")
		}
	})
}

// TestSecureContextOnPortal proves that the staging portal is a secure context (service workers
// exist) with both browsers: chromium passes --unsafely-treat-insecure-origin-as-secure on to its
// renderers itself, the headless shell only through the renderer wrapper. Without the wrapper the
// service-worker trap and bypass technique could not fire with the shell.
func TestSecureContextOnPortal(t *testing.T) {
	for _, exe := range []string{DefaultChromium, HeadlessShell} {
		t.Run(filepath.Base(exe), func(t *testing.T) {
			if _, err := os.Stat(exe); err != nil {
				t.Skip("no browser at " + exe + " (make setup)")
			}
			site := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "text/html")
				_, _ = w.Write([]byte(`<!doctype html><title>portal</title><p>ok</p>`))
			})
			pol, px := portalProxy(t, site)
			b, err := Launch(Options{ExecutablePath: exe, Environ: os.Environ()})
			if err != nil {
				t.Fatalf("launch %s: %v", exe, err)
			}
			t.Cleanup(func() { _ = b.Close() })
			sess, _ := newSession(t, b, px, pol, t.TempDir())
			t.Cleanup(func() { _ = sess.Close() })
			if res := sess.Goto(context.Background(), "http://portale.interno.test/"); res.Err != nil {
				t.Fatalf("goto: %v", res.Err)
			}
			got, err := sess.Page().Evaluate(`() => window.isSecureContext + '/' + ('serviceWorker' in navigator)`)
			if err != nil {
				t.Fatal(err)
			}
			if got != "true/true" {
				t.Fatalf("isSecureContext/serviceWorker = %v; want true/true", got)
			}
		})
	}
}
