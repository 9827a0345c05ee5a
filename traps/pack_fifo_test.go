package traps

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/trapline/trapline/internal/userfile"
)

func mkfifo(t *testing.T, path string) {
	t.Helper()
	if err := syscall.Mkfifo(path, 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
}

// loadWithin loads fn's pack and fails if loading has not returned after a few seconds.
func loadWithin(t *testing.T, fn func() ([]Trap, error)) ([]Trap, error) {
	t.Helper()
	type res struct {
		ts  []Trap
		err error
	}
	done := make(chan res, 1)
	go func() { ts, err := fn(); done <- res{ts, err} }()
	select {
	case r := <-done:
		return r.ts, r.err
	case <-time.After(5 * time.Second):
		t.Fatal("loading the pack is still blocked after 5 s")
		return nil, nil
	}
}

// TestPackFIFOIsRefused is issue 49.11: a pack page that is a FIFO hung `traps lint` and
// `run --traps-dir` forever. Anything in a pack but regular files, folders and symlinks to them is
// refused at once, naming the file and what it is; so is a page that reaches one through a symlink.
func TestPackFIFOIsRefused(t *testing.T) {
	for _, tc := range []struct {
		name string
		make func(t *testing.T, dir string)
		want string
	}{
		{"the page is a FIFO", func(t *testing.T, dir string) {
			mkfifo(t, filepath.Join(dir, "note.html"))
			setPage(t, dir, "note.html")
		}, "note.html: a named pipe (FIFO): a pack holds only regular files, folders and symlinks to them"},
		{"the trap file is a FIFO", func(t *testing.T, dir string) {
			mkfifo(t, filepath.Join(dir, "other.trap.yml"))
		}, "other.trap.yml: a named pipe (FIFO)"},
		{"a FIFO no trap names", func(t *testing.T, dir string) {
			mkfifo(t, filepath.Join(dir, "stray"))
		}, "stray: a named pipe (FIFO)"},
		{"the page is a symlink to a FIFO inside", func(t *testing.T, dir string) {
			mkfifo(t, filepath.Join(dir, "pipe"))
			symlink(t, "pipe", filepath.Join(dir, "note.html"))
			setPage(t, dir, "note.html")
		}, "pipe: a named pipe (FIFO)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := copyPack(t)
			tc.make(t, dir)
			ts, err := loadWithin(t, func() ([]Trap, error) { return LoadPack(dir) })
			if len(ts) != 0 || !errors.Is(err, userfile.ErrNotRegular) || !errors.Is(err, ErrPack) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("LoadPack = %d traps, %v; want ErrNotRegular saying %q", len(ts), err, tc.want)
			}
		})
	}
}

// TestPackReaderRefusesAFIFOPage: past the walk (LoadPackFS), the reader itself refuses the FIFO
// (reached through a symlink here), located at the trap file's pages field.
func TestPackReaderRefusesAFIFOPage(t *testing.T) {
	dir := copyPack(t)
	mkfifo(t, filepath.Join(dir, "pipe"))
	symlink(t, "pipe", filepath.Join(dir, "note.html"))
	setPage(t, dir, "note.html")
	root, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	_, err = loadWithin(t, func() ([]Trap, error) { return LoadPackFS(userfile.RootFS(root), dir) })
	want := `purge-button.trap.yml:`
	if !errors.Is(err, userfile.ErrNotRegular) || !strings.Contains(err.Error(), want) ||
		!strings.Contains(err.Error(), `page file "note.html": a named pipe (FIFO), not a regular file: trapline reads only regular files`) {
		t.Fatalf("LoadPackFS: %v", err)
	}
}
