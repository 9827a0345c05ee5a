package traps

import (
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/trapline/trapline/internal/userfile"
)

// copyPack copies testdata/pack-good into a new folder and returns it.
func copyPack(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	for _, f := range []string{"purge-button.trap.yml", "purge-button.html"} {
		b, err := os.ReadFile(filepath.Join("testdata", "pack-good", f))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, f), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// setPage points the trap's page /pratiche/12/note at file.
func setPage(t *testing.T, dir, file string) {
	t.Helper()
	p := filepath.Join(dir, "purge-button.trap.yml")
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	s := strings.Replace(string(b), "/pratiche/12/note: purge-button.html", "/pratiche/12/note: "+file, 1)
	if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
}

// outside writes a file outside the pack, as /etc/passwd would be, and returns its path.
func outside(t *testing.T) string {
	t.Helper()
	secret := filepath.Join(t.TempDir(), "passwd")
	if err := os.WriteFile(secret, []byte("root:x:0:0:SECRET-OUTSIDE-THE-PACK"), 0o644); err != nil {
		t.Fatal(err)
	}
	return secret
}

func symlink(t *testing.T, target, link string) {
	t.Helper()
	if err := os.Symlink(target, link); err != nil {
		t.Fatalf("symlink: %v", err)
	}
}

// TestPackSymlinkToAFileOutsideIsRefused: note.html -> a file outside the pack (the hostile tester's
// /etc/passwd) must not load, and the error names the link and its target.
func TestPackSymlinkToAFileOutsideIsRefused(t *testing.T) {
	dir, secret := copyPack(t), outside(t)
	symlink(t, secret, filepath.Join(dir, "note.html"))
	setPage(t, dir, "note.html")
	ts, err := LoadPack(dir)
	assertRefusedLink(t, ts, err, filepath.Join(dir, "note.html"), secret)
}

// TestPackSymlinkToAFolderOutsideIsRefused: sub -> a folder outside (sub -> /etc), page sub/passwd.
func TestPackSymlinkToAFolderOutsideIsRefused(t *testing.T) {
	dir, secret := copyPack(t), outside(t)
	symlink(t, filepath.Dir(secret), filepath.Join(dir, "sub"))
	setPage(t, dir, "sub/passwd")
	ts, err := LoadPack(dir)
	assertRefusedLink(t, ts, err, filepath.Join(dir, "sub"), filepath.Dir(secret))
}

// TestPackUnusedSymlinkOutsideIsRefused: a link no trap names is still refused (lint says so).
func TestPackUnusedSymlinkOutsideIsRefused(t *testing.T) {
	dir, secret := copyPack(t), outside(t)
	if err := os.Mkdir(filepath.Join(dir, "assets"), 0o755); err != nil {
		t.Fatal(err)
	}
	symlink(t, "../../../../../../../../.."+secret, filepath.Join(dir, "assets", "x.css"))
	ts, err := LoadPack(dir)
	assertRefusedLink(t, ts, err, filepath.Join(dir, "assets", "x.css"), "../")
}

// TestPackTrapFileSymlinkOutsideIsRefused: the *.trap.yml itself a link to a trap file elsewhere.
func TestPackTrapFileSymlinkOutsideIsRefused(t *testing.T) {
	dir, other := copyPack(t), copyPack(t)
	if err := os.Remove(filepath.Join(dir, "purge-button.trap.yml")); err != nil {
		t.Fatal(err)
	}
	target := filepath.Join(other, "purge-button.trap.yml")
	symlink(t, target, filepath.Join(dir, "purge-button.trap.yml"))
	ts, err := LoadPack(dir)
	assertRefusedLink(t, ts, err, filepath.Join(dir, "purge-button.trap.yml"), target)
}

// TestPackSymlinkInsideIsAllowed: a link that stays in the pack (pages/note.html -> ../purge-button.html,
// and a folder link inside) loads, as docs/trap-packs.md says.
func TestPackSymlinkInsideIsAllowed(t *testing.T) {
	dir := copyPack(t)
	if err := os.Mkdir(filepath.Join(dir, "pages"), 0o755); err != nil {
		t.Fatal(err)
	}
	symlink(t, "../purge-button.html", filepath.Join(dir, "pages", "note.html"))
	symlink(t, "pages", filepath.Join(dir, "alias"))
	setPage(t, dir, "alias/note.html")
	ts, err := LoadPack(dir)
	if err != nil || len(ts) != 1 {
		t.Fatalf("LoadPack = %d traps, %v; want the trap (the link stays inside)", len(ts), err)
	}
	if _, ok := ts[0].Pack.Files["alias/note.html"]; !ok {
		t.Fatalf("the page is not in the trap's source: %v", ts[0].Pack.Files)
	}
}

// TestPackDanglingSymlinkIsRefused: a link inside to nothing is an error too, saying so.
func TestPackDanglingSymlinkIsRefused(t *testing.T) {
	dir := copyPack(t)
	symlink(t, "missing.html", filepath.Join(dir, "note.html"))
	_, err := LoadPack(dir)
	if err == nil || !strings.Contains(err.Error(), "note.html: a symlink to missing.html, which does not exist") {
		t.Fatalf("err = %v", err)
	}
}

func assertRefusedLink(t *testing.T, ts []Trap, err error, link, target string) {
	t.Helper()
	if err == nil {
		t.Fatalf("LoadPack loaded %d trap(s) through a symlink out of the pack; the page is %q", len(ts), ts[0].Pack.Files)
	}
	var pe *PackError
	if !errors.As(err, &pe) || !errors.Is(err, ErrPack) {
		t.Fatalf("err = %v (%T), want a PackError", err, err)
	}
	msg := err.Error()
	if !strings.Contains(msg, link+": a symlink to "+target) || !strings.Contains(msg, "leaves the pack") {
		t.Fatalf("err = %q, want it to name the link %s and its target %s", msg, link, target)
	}
	if strings.Contains(msg, "SECRET-OUTSIDE") {
		t.Fatalf("the error repeats the file outside: %q", msg)
	}
}

// TestPackFilesOverTheirLimitAreRefused: a trap file or a page over its limit is refused with file,
// size and limit, before it is parsed.
func TestPackFilesOverTheirLimitAreRefused(t *testing.T) {
	t.Run("page", func(t *testing.T) {
		dir := copyPack(t)
		big := strings.Repeat("<p>x</p>\n", MaxPageFileBytes/9+1)
		if err := os.WriteFile(filepath.Join(dir, "purge-button.html"), []byte(big), 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := LoadPack(dir)
		want := `pages./pratiche/12/note: page file "purge-button.html": ` + itoa(len(big)) + " bytes, over the limit of 1048576 bytes (1 MiB)"
		if !errors.Is(err, userfile.ErrTooLarge) || !strings.Contains(err.Error(), want) {
			t.Fatalf("err = %v, want %q", err, want)
		}
	})
	t.Run("trap file", func(t *testing.T) {
		dir := copyPack(t)
		p := filepath.Join(dir, "purge-button.trap.yml")
		b, _ := os.ReadFile(p)
		b = append(b, strings.Repeat("# padding\n", MaxTrapFileBytes/10+1)...)
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := LoadPack(dir)
		want := p + ": " + itoa(len(b)) + " bytes, over the limit of 262144 bytes (256 KiB)"
		if !errors.Is(err, userfile.ErrTooLarge) || !strings.Contains(err.Error(), want) {
			t.Fatalf("err = %v, want %q", err, want)
		}
	})
	t.Run("pack total", func(t *testing.T) {
		dir := copyPack(t)
		page := []byte(strings.Repeat("<p>x</p>\n", (MaxPageFileBytes-100)/9))
		var pages strings.Builder
		for i := range MaxPackBytes/len(page) + 1 {
			name := "p" + itoa(i) + ".html"
			if err := os.WriteFile(filepath.Join(dir, name), page, 0o644); err != nil {
				t.Fatal(err)
			}
			pages.WriteString("  /pratiche/12/p" + itoa(i) + ": " + name + "\n")
		}
		p := filepath.Join(dir, "purge-button.trap.yml")
		b, _ := os.ReadFile(p)
		s := strings.Replace(string(b), "pages:\n", "pages:\n"+pages.String(), 1)
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := LoadPack(dir)
		if !errors.Is(err, userfile.ErrTooLarge) || !strings.Contains(err.Error(), "of the 8 MiB all the files of a trap may hold") {
			t.Fatalf("err = %v, want the pack's total limit", err)
		}
	})
}

func itoa(n int) string { return strconv.Itoa(n) }
