package specs

import (
	"archive/zip"
	"bytes"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/onsi/gomega/gcustom"
	gtypes "github.com/onsi/gomega/types"
)

// filesContaining lists the files under dir, and the entries of zip files (trace.zip), whose content
// contains secret. skipZip leaves zip archives out.
func filesContaining(dir, secret string, skipZip bool) ([]string, error) {
	var hits []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if strings.HasSuffix(p, ".zip") {
			if skipZip {
				return nil
			}
			zr, err := zip.NewReader(bytes.NewReader(b), int64(len(b)))
			if err != nil {
				return fmt.Errorf("open %s: %w", p, err)
			}
			for _, f := range zr.File {
				rc, err := f.Open()
				if err != nil {
					return fmt.Errorf("open %s in %s: %w", f.Name, p, err)
				}
				data, err := io.ReadAll(rc)
				rc.Close()
				if err != nil {
					return fmt.Errorf("read %s in %s: %w", f.Name, p, err)
				}
				if bytes.Contains(data, []byte(secret)) {
					hits = append(hits, p+"!"+f.Name)
				}
			}
			return nil
		}
		if bytes.Contains(b, []byte(secret)) {
			hits = append(hits, p)
		}
		return nil
	})
	return hits, err
}

// ContainNoSecret succeeds when no file of an evidence folder (zip entries included unless skipZip)
// contains secret. A folder that cannot be read is an error, not a pass.
func ContainNoSecret(secret string, skipZip bool) gtypes.GomegaMatcher {
	return gcustom.MakeMatcher(func(dir string) (bool, error) {
		if secret == "" {
			return false, fmt.Errorf("ContainNoSecret: empty secret")
		}
		hits, err := filesContaining(dir, secret, skipZip)
		if err != nil {
			return false, err
		}
		return len(hits) == 0, nil
	}).WithTemplate("Expected no artifact in {{.Actual}} to contain the secret, but it leaked (see the files listed by `grep -rl` there, zip entries included)")
}
