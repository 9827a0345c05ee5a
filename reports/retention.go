package reports

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/trapline/trapline/results"
)

// Evidence holds page content, personal data included; the source documents keep it 30 to 90 days.
// These functions measure it and remove what is older than asked.

// dirSize returns the bytes of the regular files below dir (0 when it does not exist).
func dirSize(dir string) (int64, error) {
	var n int64
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) && p == dir {
				return fs.SkipAll
			}
			return err
		}
		if d.Type().IsRegular() {
			fi, err := d.Info()
			if err != nil {
				return err
			}
			n += fi.Size()
		}
		return nil
	})
	if err != nil {
		return n, fmt.Errorf("reports: size of %s: %w", dir, err)
	}
	return n, nil
}

// MeasureEvidence sets s.EvidenceBytes to the size of its entries' evidence folders (each counted
// once, looked up as the HTML report does: the recorded path, or below summaryDir/evidence).
func MeasureEvidence(s *Summary, summaryDir string) error {
	seen := map[string]bool{}
	var total int64
	for _, e := range s.Entries {
		d, ok := locate(e, summaryDir)
		if !ok || seen[d] {
			continue
		}
		seen[d] = true
		n, err := dirSize(d)
		if err != nil {
			return err
		}
		total += n
	}
	s.EvidenceBytes = total
	return nil
}

// ParseAge reads a retention age: a Go duration ("36h", "90m") or a number of days ("30d").
func ParseAge(s string) (time.Duration, error) {
	if days, ok := strings.CutSuffix(s, "d"); ok {
		n, err := strconv.Atoi(days)
		if err != nil || n < 0 {
			return 0, fmt.Errorf("age %q: want a number of days such as 30d, or a duration such as 36h", s)
		}
		return time.Duration(n) * 24 * time.Hour, nil
	}
	d, err := time.ParseDuration(s)
	if err != nil || d < 0 {
		return 0, fmt.Errorf("age %q: want a number of days such as 30d, or a duration such as 36h", s)
	}
	return d, nil
}

// Pruned is one evidence folder Prune removed (or would remove).
type Pruned struct {
	Dir    string
	Newest time.Time // its newest file's modification time
	Bytes  int64
}

// isArmFolder says whether dir is one run's evidence folder for one arm (what the harness writes:
// result.json, actions.jsonl, violations.jsonl or trace.zip).
func isArmFolder(dir string) bool {
	for _, f := range []string{results.ResultFile, ActionsFile, ViolationsFile, TraceFile} {
		if fileExists(filepath.Join(dir, f)) {
			return true
		}
	}
	return false
}

// newest returns the latest modification time of the files below dir, and their total size.
func newest(dir string) (time.Time, int64, error) {
	var t time.Time
	var n int64
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.Type().IsRegular() {
			return nil // a folder's own time is when an entry was added, not when evidence was made
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		if fi.ModTime().After(t) {
			t = fi.ModTime()
		}
		n += fi.Size()
		return nil
	})
	return t, n, err
}

// PruneEvidence removes, below root, every arm's evidence folder whose newest file is older than
// olderThan at now, and then the folders that removal left empty (never root itself). Everything else
// stays: summaries, reports, logs, and evidence folders with any file newer than the cutoff. With
// dryRun it only lists what it would remove.
func PruneEvidence(root string, olderThan time.Duration, now time.Time, dryRun bool) ([]Pruned, error) {
	fi, err := os.Stat(root)
	if err != nil {
		return nil, fmt.Errorf("evidence prune: %w", err)
	}
	if !fi.IsDir() {
		return nil, fmt.Errorf("evidence prune: %s is not a folder", root)
	}
	cutoff := now.Add(-olderThan)
	var out []Pruned
	var parents []string
	err = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() || p == root || !isArmFolder(p) {
			return nil
		}
		t, n, err := newest(p)
		if err != nil {
			return err
		}
		if t.Before(cutoff) {
			out = append(out, Pruned{Dir: p, Newest: t, Bytes: n})
			parents = append(parents, filepath.Dir(p))
		}
		return fs.SkipDir
	})
	if err != nil {
		return out, fmt.Errorf("evidence prune %s: %w", root, err)
	}
	if dryRun {
		return out, nil
	}
	for _, p := range out {
		if err := os.RemoveAll(p.Dir); err != nil {
			return out, fmt.Errorf("evidence prune: remove %s: %w", p.Dir, err)
		}
	}
	// Remove the folders left empty, deepest first, up to (not including) root.
	sort.Slice(parents, func(i, j int) bool { return len(parents[i]) > len(parents[j]) })
	absRoot, _ := filepath.Abs(root)
	for _, dir := range parents {
		for {
			abs, _ := filepath.Abs(dir)
			if abs == absRoot || !strings.HasPrefix(abs, absRoot+string(filepath.Separator)) {
				break
			}
			if err := os.Remove(dir); err != nil { // fails on a non-empty folder: it stays
				break
			}
			dir = filepath.Dir(dir)
		}
	}
	return out, nil
}

// HumanBytes writes n as "812 B", "3.4 KB", "12.0 MB" or "1.2 GB" (powers of 1000).
func HumanBytes(n int64) string {
	switch {
	case n < 1000:
		return fmt.Sprintf("%d B", n)
	case n < 1000*1000:
		return fmt.Sprintf("%.1f KB", float64(n)/1e3)
	case n < 1000*1000*1000:
		return fmt.Sprintf("%.1f MB", float64(n)/1e6)
	}
	return fmt.Sprintf("%.1f GB", float64(n)/1e9)
}
