package evidence

import (
	"archive/zip"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// Zip redacts the zip archive at path (trace.zip: Playwright writes it, and its action log, network
// log, DOM snapshots and resources hold whatever the page was given, a typed password included): every
// entry is read as a stream and scanned; when one holds a secret, a new archive is written beside it
// (mode FileMode) with those entries redacted and the others copied as they are, and renamed over
// path. It returns the forms replaced, one per replacement; an archive without a secret is left
// untouched. Entries that hold pixels (IsPixels) are copied unscanned.
func (r *Redactor) Zip(path string) ([]string, error) {
	if !r.active() {
		return nil, nil
	}
	zr, err := zip.OpenReader(path)
	if err != nil {
		return nil, fmt.Errorf("evidence: redact %s: %w", path, err)
	}
	defer zr.Close()
	hit := make([]bool, len(zr.File))
	var forms []string
	for i, f := range zr.File {
		if IsPixels(f.Name) {
			continue
		}
		fs, err := r.zipEntry(io.Discard, f)
		if err != nil {
			return nil, fmt.Errorf("evidence: redact %s: %w", path, err)
		}
		hit[i] = len(fs) > 0
		forms = append(forms, fs...)
	}
	if len(forms) == 0 {
		return nil, nil
	}
	if err := r.rewriteZip(path, zr, hit); err != nil {
		return nil, fmt.Errorf("evidence: redact %s: %w", path, err)
	}
	return forms, nil
}

// zipEntry streams f's content, redacted, to dst.
func (r *Redactor) zipEntry(dst io.Writer, f *zip.File) ([]string, error) {
	rc, err := f.Open()
	if err != nil {
		return nil, fmt.Errorf("open entry %s: %w", f.Name, err)
	}
	forms, err := r.Copy(dst, rc)
	if cerr := rc.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return nil, fmt.Errorf("read entry %s: %w", f.Name, err)
	}
	return forms, nil
}

// rewriteZip writes zr's entries to a new archive beside path, the hit ones redacted, and renames it
// over path.
func (r *Redactor) rewriteZip(path string, zr *zip.ReadCloser, hit []bool) (err error) {
	return replaceFile(path, func(w io.Writer) error {
		zw := zip.NewWriter(w)
		for i, f := range zr.File {
			if !hit[i] {
				if err := zw.Copy(f); err != nil {
					return fmt.Errorf("copy entry %s: %w", f.Name, err)
				}
				continue
			}
			h := f.FileHeader
			h.CRC32, h.CompressedSize64, h.UncompressedSize64 = 0, 0, 0
			//lint:ignore SA1019 the deprecated 32-bit sizes are in the copied header too: zero them as well
			h.CompressedSize, h.UncompressedSize = 0, 0
			h.Extra = nil // it may hold the old sizes (zip64); the writer adds Modified's own
			ew, err := zw.CreateHeader(&h)
			if err != nil {
				return fmt.Errorf("write entry %s: %w", f.Name, err)
			}
			if _, err := r.zipEntry(ew, f); err != nil {
				return err
			}
		}
		if err := zw.SetComment(r.String(zr.Comment)); err != nil {
			return err
		}
		return zw.Close()
	})
}

// replaceFile writes a new file beside path with write, flushes it to disk and renames it over path:
// a reader sees the old file or the new one, never a part. The new file has mode FileMode.
func replaceFile(path string, write func(io.Writer) error) (err error) {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".redact-*")
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			_ = os.Remove(tmp.Name())
		}
	}()
	err = write(tmp)
	if err == nil {
		err = tmp.Chmod(FileMode)
	}
	if err == nil {
		err = tmp.Sync()
	}
	err = errors.Join(err, tmp.Close())
	if err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}

// pixelExts are the extensions of files whose content is pixels: screenshots, screencast frames,
// videos.
var pixelExts = []string{".png", ".jpg", ".jpeg", ".webm", ".webp"}

// IsPixels reports whether a file or zip entry named name holds pixels (a screenshot, a screencast
// frame, a video). Its bytes are not redacted: a secret in them is an image of text (a value typed
// into a field that shows it), which no byte replacement can find; a password field shows dots.
// Scan still scans them.
func IsPixels(name string) bool {
	name = strings.ToLower(name)
	for _, e := range pixelExts {
		if strings.HasSuffix(name, e) {
			return true
		}
	}
	return false
}
