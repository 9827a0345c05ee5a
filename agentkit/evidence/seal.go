package evidence

import (
	"archive/zip"
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
)

// Modes of everything in a run folder: it holds page content (what the agent saw and typed), readable
// by its owner only.
const (
	FileMode fs.FileMode = 0o600
	DirMode  fs.FileMode = 0o700
)

// Seal finishes a run folder once nothing writes to it any more (the browser, the world and the agent
// are closed): every file in it and below is redacted with r (a zip archive entry by entry, Zip; a
// file of pixels is not, IsPixels), every file gets mode FileMode and every folder DirMode. A
// symbolic link or any other file that is not a regular file or a folder is an error naming it,
// never followed: a run folder holds only what trapline and the browser wrote. A nil r only sets the
// modes (a copy of a folder sealed already).
func Seal(dir string, r *Redactor) error {
	return walkFolder(dir, func(p string, d fs.DirEntry) error {
		if d.IsDir() {
			return os.Chmod(p, DirMode)
		}
		if err := redactFile(p, r); err != nil {
			return err
		}
		return os.Chmod(p, FileMode)
	})
}

// walkFolder calls fn for dir and every folder and regular file under it; anything else is an error.
func walkFolder(dir string, fn func(string, fs.DirEntry) error) error {
	return filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return fmt.Errorf("evidence: %w", err)
		}
		if !d.IsDir() && !d.Type().IsRegular() {
			what := d.Type().String()
			if d.Type()&fs.ModeSymlink != 0 {
				target, _ := os.Readlink(p)
				what = "a symbolic link to " + target
			}
			return fmt.Errorf("evidence: %s is %s: a run folder holds only files and folders", p, what)
		}
		if err := fn(p, d); err != nil {
			return fmt.Errorf("evidence: seal %s: %w", p, err)
		}
		return nil
	})
}

// redactFile redacts one file in place: a zip archive entry by entry, any other file (but pixels) as
// bytes, rewritten only when it held a secret.
func redactFile(p string, r *Redactor) error {
	if !r.active() || IsPixels(p) {
		return nil
	}
	if isZip(p) {
		_, err := r.Zip(p)
		return err
	}
	f, err := os.Open(p)
	if err != nil {
		return err
	}
	forms, err := r.Copy(io.Discard, f)
	f.Close()
	if err != nil || len(forms) == 0 {
		return err
	}
	return replaceFile(p, func(w io.Writer) error {
		f, err := os.Open(p)
		if err != nil {
			return err
		}
		defer f.Close()
		_, err = r.Copy(w, f)
		return err
	})
}

// isZip reports whether the file at p opens as a zip archive.
func isZip(p string) bool {
	zr, err := zip.OpenReader(p)
	if err != nil {
		return false
	}
	zr.Close()
	return true
}

// Leak is a secret found in an artifact: the file (relative to the folder scanned), the zip entry
// ("" for the file itself) and the form it took. It never holds the secret.
type Leak struct {
	File, Entry, Form string
}

// String is "trace.zip!trace.network (url-encoded)".
func (l Leak) String() string {
	where := l.File
	if l.Entry != "" {
		where += "!" + l.Entry
	}
	return where + " (" + l.Form + ")"
}

// Scan looks for every form of every secret (the Form constants) in every file under dir, the entries
// (and names) of zip archives included, pixels included: the check, from outside, that Seal left no
// secret in a run folder. Each file, entry and form is listed once. A folder that cannot be read, a
// symbolic link or a special file is an error, not a pass.
func Scan(dir string, secrets ...string) ([]Leak, error) {
	m := newMatcher(secrets)
	if m == nil {
		return nil, errors.New("evidence: scan: no secret to look for")
	}
	r := &Redactor{m: m}
	var leaks []Leak
	add := func(l Leak) {
		if !slices.Contains(leaks, l) {
			leaks = append(leaks, l)
		}
	}
	err := walkFolder(dir, func(p string, d fs.DirEntry) error {
		if d.IsDir() {
			return nil
		}
		rel, err := filepath.Rel(dir, p)
		if err != nil {
			return err
		}
		if isZip(p) {
			return scanZip(p, rel, r, add)
		}
		f, err := os.Open(p)
		if err != nil {
			return err
		}
		defer f.Close()
		forms, err := r.Copy(io.Discard, f)
		for _, form := range forms {
			add(Leak{File: rel, Form: form})
		}
		return err
	})
	return leaks, err
}

// scanZip scans the entries, names and comment of the zip archive at p.
func scanZip(p, rel string, r *Redactor, add func(Leak)) error {
	zr, err := zip.OpenReader(p)
	if err != nil {
		return err
	}
	defer zr.Close()
	for _, form := range formsIn(r, []byte(zr.Comment)) {
		add(Leak{File: rel, Entry: "(comment)", Form: form})
	}
	for _, f := range zr.File {
		for _, form := range formsIn(r, []byte(f.Name)) {
			add(Leak{File: rel, Entry: "(name of an entry)", Form: form})
		}
		forms, err := r.zipEntry(io.Discard, f)
		if err != nil {
			return err
		}
		for _, form := range forms {
			add(Leak{File: rel, Entry: f.Name, Form: form})
		}
	}
	return nil
}

// formsIn is the forms of the secrets in b.
func formsIn(r *Redactor, b []byte) []string {
	forms, _ := r.Copy(io.Discard, bytes.NewReader(b))
	return forms
}
