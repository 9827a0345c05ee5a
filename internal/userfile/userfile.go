// Package userfile reads the files a user or a trap pack hands trapline (a policy, a trap pack's
// files, a login file) with a size limit checked before anything is parsed, so that a file's memory
// cost is bounded by a small multiple of its limit and an oversized file is refused at once, naming
// the file, its size and the limit. It is also their one strict YAML reader (Document: exactly one
// document; Keys: no unknown, duplicate or missing key) and their one located error (Error,
// file:line: field: reason, with a Code and the kind of file's Family).
//
// It is shared machinery of public packages (agentkit/policy, agentkit/credentials, traps), which
// re-export what their users match (policy.ErrTooLarge is userfile.ErrTooLarge): like gomega's
// internal/, it is not API of its own.
//
//	data, err := userfile.ReadFile("policy", path, policy.MaxFileBytes)
//	if errors.Is(err, userfile.ErrTooLarge) { ... } // "policy big.yml: 50000063 bytes, over the limit of 1048576 bytes (1 MiB)"
package userfile

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
)

// ErrTooLarge is matched (errors.Is) by every *TooLargeError.
var ErrTooLarge = errors.New("file over its size limit")

// TooLargeError says a file is larger than its kind's limit.
type TooLargeError struct {
	// Kind says what the file is for ("policy", "trap pack file", "login file").
	Kind string
	// File is the file's path as the user gave it.
	File string
	// Size is the file's size in bytes, or -1 when only "more than Limit" is known (a stream, or a
	// file that grew while it was read).
	Size int64
	// Limit is the largest size accepted, in bytes.
	Limit int64
}

// Error renders "KIND FILE: SIZE bytes, over the limit of LIMIT bytes (human)".
func (e *TooLargeError) Error() string {
	return fmt.Sprintf("%s %s: %s", e.Kind, e.File, e.Sizes())
}

// Sizes renders the size and the limit alone, "SIZE bytes, over the limit of LIMIT bytes (human)",
// for a message that names the file already.
func (e *TooLargeError) Sizes() string {
	size := fmt.Sprintf("%d bytes", e.Size)
	if e.Size < 0 {
		size = fmt.Sprintf("more than %d bytes", e.Limit)
	}
	return fmt.Sprintf("%s, over the limit of %d bytes (%s)", size, e.Limit, Human(e.Limit))
}

// Is makes errors.Is(err, ErrTooLarge) true.
func (e *TooLargeError) Is(target error) bool { return target == ErrTooLarge }

// Human renders a byte count as KiB or MiB when it is a whole number of them.
func Human(n int64) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d B", n)
}

// ReadFile reads the file at path, refusing one larger than limit bytes with a *TooLargeError before
// reading it: the size is checked on the opened file (so not raced by a rename), and the read itself
// stops at limit+1 bytes (so a file whose size lies, such as one under /proc, is bounded too). Anything
// but a regular file (a FIFO, a device, a socket, a folder) is a *NotRegularError, refused without
// blocking (Open).
func ReadFile(kind, path string, limit int64) ([]byte, error) {
	f, err := Open(kind, path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return read(f, kind, path, limit)
}

// ReadFS is ReadFile on a file system (an os.Root's through RootFS, a pack's); display names the file
// in errors. The file's type is checked before it is opened (a file system whose Open blocks on a
// FIFO does not block here) and again on the opened file.
func ReadFS(fsys fs.FS, name, kind, display string, limit int64) ([]byte, error) {
	fi, err := fs.Stat(fsys, name)
	if err != nil {
		return nil, err
	}
	if err := checkRegular(fi, kind, display); err != nil {
		return nil, err
	}
	f, err := fsys.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return read(f, kind, display, limit)
}

// Read reads r (a stream of unknown size) up to limit bytes; more is a *TooLargeError.
func Read(r io.Reader, kind, display string, limit int64) ([]byte, error) {
	b, err := io.ReadAll(io.LimitReader(r, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(b)) > limit {
		return nil, &TooLargeError{Kind: kind, File: display, Size: -1, Limit: limit}
	}
	return b, nil
}

func read(f fs.File, kind, display string, limit int64) ([]byte, error) {
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if err := checkRegular(fi, kind, display); err != nil {
		return nil, err
	}
	if fi.Size() > limit {
		return nil, &TooLargeError{Kind: kind, File: display, Size: fi.Size(), Limit: limit}
	}
	return Read(f, kind, display, limit)
}
