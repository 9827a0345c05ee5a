package userfile

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// within runs fn and fails the test if it has not returned after a few seconds: the bug this file
// tests is a read that never ends.
func within(t *testing.T, what string, fn func() error) error {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- fn() }()
	select {
	case err := <-done:
		return err
	case <-time.After(5 * time.Second):
		t.Fatalf("%s: still blocked after 5 s", what)
		return nil
	}
}

func mkfifo(t *testing.T, path string) {
	t.Helper()
	if err := syscall.Mkfifo(path, 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
}

// TestOnlyRegularFilesAreRead is issue 49.11: a FIFO as a pack page hung `traps lint` forever. The
// one reader refuses a FIFO, a device and a folder, without blocking, naming the file and its type.
func TestOnlyRegularFilesAreRead(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "page.html")
	mkfifo(t, fifo)
	if err := os.Symlink("page.html", filepath.Join(dir, "link.html")); err != nil {
		t.Fatal(err)
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	for _, tc := range []struct {
		name, want string
		read       func() error
	}{
		{"a FIFO", "page file " + fifo + ": a named pipe (FIFO), not a regular file", func() error {
			_, err := ReadFile("page file", fifo, 1<<20)
			return err
		}},
		{"a FIFO in a root", "page file pack/page.html: a named pipe (FIFO)", func() error {
			_, err := ReadFS(RootFS(root), "page.html", "page file", "pack/page.html", 1<<20)
			return err
		}},
		{"a symlink to a FIFO in a root", "page file pack/link.html: a named pipe (FIFO)", func() error {
			_, err := ReadFS(RootFS(root), "link.html", "page file", "pack/link.html", 1<<20)
			return err
		}},
		{"a FIFO in an os.DirFS (whose Open would block)", "page file d/page.html: a named pipe (FIFO)", func() error {
			_, err := ReadFS(os.DirFS(dir), "page.html", "page file", "d/page.html", 1<<20)
			return err
		}},
		{"a character device", "policy /dev/null: a character device, not a regular file", func() error {
			_, err := ReadFile("policy", "/dev/null", 1<<20)
			return err
		}},
		{"a folder", "policy " + dir + ": a folder, not a regular file", func() error {
			_, err := ReadFile("policy", dir, 1<<20)
			return err
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := within(t, tc.name, tc.read)
			var nr *NotRegularError
			if !errors.Is(err, ErrNotRegular) || !errors.As(err, &nr) || !strings.HasPrefix(err.Error(), tc.want) {
				t.Fatalf("err = %v, want %q… (ErrNotRegular)", err, tc.want)
			}
		})
	}
	// A FIFO that replaces a checked file between the check and the open (the race) does not block
	// RootFS's Open either; read checks the opened file again.
	err = within(t, "RootFS.Open of a FIFO", func() error {
		f, err := RootFS(root).Open("page.html")
		if err == nil {
			defer f.Close()
			_, err = read(f, "page file", "page.html", 10)
		}
		return err
	})
	if !errors.Is(err, ErrNotRegular) {
		t.Errorf("read of an opened FIFO: %v, want ErrNotRegular", err)
	}
	if b, err := ReadFS(RootFS(root), ".", "x", "x", 10); err == nil {
		t.Errorf("ReadFS of the root folder = %q, want an error", b)
	}
	regular := filepath.Join(dir, "ok.html")
	if err := os.WriteFile(regular, []byte("<p>ok</p>"), 0o644); err != nil {
		t.Fatal(err)
	}
	if b, err := ReadFS(RootFS(root), "ok.html", "page file", "ok.html", 100); err != nil || string(b) != "<p>ok</p>" {
		t.Errorf("a regular file: %q, %v", b, err)
	}
	if b, err := ReadFile("page file", regular, 100); err != nil || string(b) != "<p>ok</p>" {
		t.Errorf("a regular file: %q, %v", b, err)
	}
}
