package userfile

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"syscall"
)

// ErrNotRegular is matched (errors.Is) by every *NotRegularError.
var ErrNotRegular = errors.New("not a regular file")

// NotRegularError says a file trapline was to read is not a regular file: a named pipe (FIFO), a
// device, a socket or a folder. Reading one could block forever (a FIFO no one writes, a terminal) or
// never end (/dev/zero), so the one reader refuses it before reading a byte (issue 49.11).
type NotRegularError struct {
	// Kind says what the file is for ("policy", "page file", ...).
	Kind string
	// File is the file's path as the user gave it.
	File string
	// Mode is the file's type bits.
	Mode fs.FileMode
}

// Error renders "KIND FILE: a named pipe (FIFO), not a regular file: trapline reads only regular files".
func (e *NotRegularError) Error() string {
	return fmt.Sprintf("%s %s: %s", e.Kind, e.File, e.Reason())
}

// Reason renders the reason alone, for a message that names the file already.
func (e *NotRegularError) Reason() string {
	return fmt.Sprintf("%s, not a regular file: trapline reads only regular files", TypeName(e.Mode))
}

// Is makes errors.Is(err, ErrNotRegular) true.
func (e *NotRegularError) Is(target error) bool { return target == ErrNotRegular }

// TypeName names the type of a file mode, as an error shows it ("a named pipe (FIFO)").
func TypeName(m fs.FileMode) string {
	for _, t := range fileTypes {
		if m&t.bit != 0 {
			return t.name
		}
	}
	if m.IsRegular() {
		return "a regular file"
	}
	return fmt.Sprintf("a file of type %v", m.Type())
}

// fileTypes are the non-regular file types, most specific first (a character device is a device too).
var fileTypes = []struct {
	bit  fs.FileMode
	name string
}{
	{fs.ModeDir, "a folder"},
	{fs.ModeSymlink, "a symlink"},
	{fs.ModeNamedPipe, "a named pipe (FIFO)"},
	{fs.ModeSocket, "a socket"},
	{fs.ModeCharDevice, "a character device"},
	{fs.ModeDevice, "a block device"},
	{fs.ModeIrregular, "an irregular file"},
}

// checkRegular returns a *NotRegularError unless fi is a regular file.
func checkRegular(fi fs.FileInfo, kind, display string) error {
	if fi.Mode().IsRegular() {
		return nil
	}
	return &NotRegularError{Kind: kind, File: display, Mode: fi.Mode().Type()}
}

// openFlags open a file without waiting: opening a FIFO for reading blocks until a writer comes,
// unless O_NONBLOCK; the opened file is then checked by its own Stat (no rename can race it) and only
// a regular file, on which O_NONBLOCK changes nothing, is read.
const openFlags = os.O_RDONLY | syscall.O_NONBLOCK

// Open opens path for reading as ReadFile does, without blocking on a FIFO, and returns it only if it
// is a regular file; the caller closes it.
func Open(kind, path string) (*os.File, error) {
	f, err := os.OpenFile(path, openFlags, 0)
	if err != nil {
		return nil, err
	}
	fi, err := f.Stat()
	if err == nil {
		err = checkRegular(fi, kind, path)
	}
	if err != nil {
		_ = f.Close()
		return nil, err
	}
	return f, nil
}

// RootFS is r's file system for ReadFS whose Open does not block on a FIFO (os.Root's own FS opens
// with O_RDONLY alone): every other method is r.FS()'s.
func RootFS(r *os.Root) fs.FS { return rootFS{FS: r.FS(), root: r} }

type rootFS struct {
	fs.FS
	root *os.Root
}

func (r rootFS) Open(name string) (fs.File, error) {
	if !fs.ValidPath(name) {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrInvalid}
	}
	return r.root.OpenFile(name, openFlags, 0)
}

func (r rootFS) Stat(name string) (fs.FileInfo, error) { return fs.Stat(r.FS, name) }

func (r rootFS) ReadDir(name string) ([]fs.DirEntry, error) { return fs.ReadDir(r.FS, name) }
