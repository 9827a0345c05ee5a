package reports

import (
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/onsi/ginkgo/v2/reporters"

	"github.com/trapline/trapline/agentkit/evidence"
)

// Names of the files a run writes in its reports folder, and that a merge reads in each shard's.
const (
	SummaryFile = "summary.json"
	JUnitFile   = "junit.xml"
	HTMLFile    = "report.html"
	EvidenceDir = "evidence"
)

// ErrShardMismatch is returned (wrapped) when shards cannot be merged: different provenance, an arm or a
// spec run in two shards.
var ErrShardMismatch = errors.New("shards do not belong to one run")

// ErrShardMissing is returned (wrapped) for a shard folder without its summary.json or junit.xml: the
// shard broke before writing them (or its artifact was never uploaded). Its arms are unknown, not
// absent: a merge without them would pass what was never run.
var ErrShardMissing = errors.New("a shard's reports are missing")

// ErrModelSilent is returned (wrapped) for a shard of an llm agent whose model never answered (its
// provenance records no model_served): none of its arms asked the model anything, so they say nothing
// about it, whatever their verdicts.
var ErrModelSilent = errors.New("the shard's model never answered")

// Merged is the result of merging shards: one summary and one JUnit document.
type Merged struct {
	Summary Summary
	JUnit   reporters.JUnitTestSuites
	// Shards are the shard folders merged, in order.
	Shards []string
	// shardOf is the shard folder each entry came from.
	shardOf map[key]string
}

// shard is one shard's reports folder as the merge reads it.
type shard struct {
	dir     string
	summary Summary
	junit   reporters.JUnitTestSuites
}

// sameProvenance returns nil when a and b come from the same build, policy and environment, or an
// error naming the first field that differs and both values. Times and the random seed are left out:
// shards start apart, and Ginkgo draws a seed per shard. It is the one place a merge compares
// provenance, through compareProvenance (the baseline diff's comparison).
func sameProvenance(a, b Summary) error {
	if a.V != b.V {
		return fmt.Errorf("schema version %d vs %d", a.V, b.V)
	}
	if (a.Provenance == nil) != (b.Provenance == nil) {
		return fmt.Errorf("provenance recorded in one shard only (%v vs %v)", a.Provenance != nil, b.Provenance != nil)
	}
	for _, c := range compareProvenance(a.Provenance, b.Provenance) {
		if c.Field == "seed" {
			continue
		}
		return fmt.Errorf("provenance field %q: %q vs %q", c.Field, c.Before, c.After)
	}
	return nil
}

// mergeProvenance is the merged run's provenance: the shards' (equal but for times and seed), started
// at the earliest shard's start and ended at the latest end, with every shard's seed when they differ.
func mergeProvenance(shards []shard) *Provenance {
	if shards[0].summary.Provenance == nil {
		return nil
	}
	p := *shards[0].summary.Provenance
	seeds := []string{p.Seed}
	for _, sh := range shards[1:] {
		q := sh.summary.Provenance
		if !q.Started.IsZero() && (p.Started.IsZero() || q.Started.Before(p.Started)) {
			p.Started = q.Started
		}
		if q.Ended.After(p.Ended) {
			p.Ended = q.Ended
		}
		if !slices.Contains(seeds, q.Seed) {
			seeds = append(seeds, q.Seed)
		}
	}
	p.Seed = strings.Join(seeds, ",")
	return &p
}

func readShard(dir string) (shard, error) {
	sh := shard{dir: dir}
	path := filepath.Join(dir, SummaryFile)
	if _, err := os.Stat(path); err != nil {
		return sh, fmt.Errorf("merge: shard %s: %w: %w (a shard that broke before writing its summary cannot be merged)", dir, ErrShardMissing, err)
	}
	var err error
	if sh.summary, err = ReadJSON(path); err != nil {
		return sh, fmt.Errorf("merge: shard %s: %w", dir, err)
	}
	jpath := filepath.Join(dir, JUnitFile)
	if _, err := os.Stat(jpath); err != nil {
		return sh, fmt.Errorf("merge: shard %s: %w: %w (specs outside the trap arms are reported only there)", dir, ErrShardMissing, err)
	}
	if sh.junit, err = ReadJUnit(jpath); err != nil {
		return sh, fmt.Errorf("merge: shard %s: %w", dir, err)
	}
	if p := sh.summary.Provenance; p != nil && p.Agent.Kind == "llm" && strings.TrimSpace(p.Agent.ModelServed) == "" {
		return sh, fmt.Errorf("merge: shard %s: %w: its provenance records no model_served (model %q at %s), so its %d arm(s) asked the model nothing; "+
			"make the model answer and run the shard again", dir, ErrModelSilent, p.Agent.Model, orDash(p.Agent.ModelEndpoint), len(sh.summary.Entries))
	}
	return sh, nil
}

// Merge reads the shards' reports folders (each with summary.json and junit.xml, as `make demo` writes
// them) and merges them: every entry of every summary, and every spec of every JUnit document (a spec
// that a shard's filter skipped is kept only when no shard ran it). It refuses, with ErrShardMismatch,
// shards whose provenance differs, an arm present in two shards and a spec run in two shards. Evidence
// paths are left as the shards recorded them; WriteMerged relocates them.
func Merge(dirs []string) (Merged, error) {
	if len(dirs) == 0 {
		return Merged{}, errors.New("merge: no shard folder given")
	}
	var shards []shard
	var errs []error
	for _, d := range dirs {
		sh, err := readShard(d)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		shards = append(shards, sh)
	}
	if err := errors.Join(errs...); err != nil {
		return Merged{}, err
	}
	first := shards[0]
	for _, sh := range shards[1:] {
		if err := sameProvenance(first.summary, sh.summary); err != nil {
			return Merged{}, fmt.Errorf("merge: %w: %s and %s differ: %v; merge only the shards of one commit, policy and run", ErrShardMismatch, first.dir, sh.dir, err)
		}
	}
	m := Merged{Shards: slices.Clone(dirs)}
	// The first shard's summary carries every field besides the entries and the provenance's times and
	// seed: the shards share them, checked above.
	m.Summary = first.summary
	m.Summary.Entries = nil
	m.Summary.Provenance = mergeProvenance(shards)
	from := map[key]string{}
	for _, sh := range shards {
		for _, e := range sh.summary.Entries {
			k := keyOf(e)
			if d, dup := from[k]; dup {
				return Merged{}, fmt.Errorf("merge: %w: %s (%s arm) is in both %s and %s: the shards' label filters overlap", ErrShardMismatch, e.Trap, ArmLabel(e), d, sh.dir)
			}
			from[k] = sh.dir
			m.Summary.Entries = append(m.Summary.Entries, e)
		}
	}
	generated := first.summary.Generated
	for _, sh := range shards {
		if sh.summary.Generated.After(generated) {
			generated = sh.summary.Generated
		}
	}
	m.Summary.Finish(generated)
	m.shardOf = from
	j, err := mergeJUnit(shards)
	if err != nil {
		return Merged{}, err
	}
	m.JUnit = j
	return m, nil
}

// mergeJUnit merges the shards' JUnit documents: one test suite per suite name, one test case per
// spec ("[It] ...") name, the one that ran (not skipped or pending) when a shard ran it, every shard's
// suite nodes (named after their shard), and counts recomputed.
func mergeJUnit(shards []shard) (reporters.JUnitTestSuites, error) {
	var out reporters.JUnitTestSuites
	suiteIdx := map[string]int{}
	type at struct{ suite, c int }
	cases := map[string]at{}
	ranIn := map[string]string{}
	for _, sh := range shards {
		for _, s := range sh.junit.TestSuites {
			si, ok := suiteIdx[s.Name]
			if !ok {
				si = len(out.TestSuites)
				suiteIdx[s.Name] = si
				ns := s
				ns.TestCases = nil
				ns.Time = 0
				out.TestSuites = append(out.TestSuites, ns)
			}
			dst := &out.TestSuites[si]
			dst.Time += s.Time
			if s.Timestamp != "" && (dst.Timestamp == "" || s.Timestamp < dst.Timestamp) {
				dst.Timestamp = s.Timestamp
			}
			for _, tc := range s.TestCases {
				if !strings.HasPrefix(tc.Name, "[It] ") {
					// A suite node ([SynchronizedBeforeSuite], [ReportAfterSuite] ..., [DeferCleanup
					// (Suite)]) runs in every shard: keep each shard's, named after it.
					tc.Name += " (shard " + sh.dir + ")"
				}
				id := s.Name + "\x00" + tc.Name
				ran := tc.Skipped == nil
				if ran {
					if d, dup := ranIn[id]; dup {
						return out, fmt.Errorf("merge: %w: spec %q ran in both %s and %s: the shards' label filters overlap", ErrShardMismatch, tc.Name, d, sh.dir)
					}
					ranIn[id] = sh.dir
				}
				if p, seen := cases[id]; seen {
					if ran {
						out.TestSuites[p.suite].TestCases[p.c] = tc
					}
					continue
				}
				cases[id] = at{si, len(dst.TestCases)}
				dst.TestCases = append(dst.TestCases, tc)
			}
		}
	}
	for i := range out.TestSuites {
		s := &out.TestSuites[i]
		s.Tests, s.Disabled, s.Skipped, s.Errors, s.Failures = len(s.TestCases), 0, 0, 0, 0
		for _, tc := range s.TestCases {
			switch {
			case tc.Status == "pending":
				s.Disabled++
			case tc.Skipped != nil:
				s.Skipped++
			case tc.Error != nil:
				s.Errors++
			case tc.Failure != nil:
				s.Failures++
			}
		}
		out.Tests += s.Tests
		out.Disabled += s.Disabled + s.Skipped
		out.Errors += s.Errors
		out.Failures += s.Failures
		out.Time += s.Time
	}
	return out, nil
}

// WriteJUnit writes a JUnit document (as Ginkgo's reporter writes it: XML header, indented).
func WriteJUnit(path string, j reporters.JUnitTestSuites) error {
	b, err := xml.MarshalIndent(j, "  ", "    ")
	if err != nil {
		return fmt.Errorf("reports: encode junit: %w", err)
	}
	var buf bytes.Buffer
	buf.WriteString(xml.Header)
	buf.Write(b)
	buf.WriteString("\n")
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		return fmt.Errorf("reports: write %s: %w", path, err)
	}
	return nil
}

// WriteMerged merges the shards (see Merge) into out, which must be absent or empty: out/summary.json,
// out/junit.xml, out/report.html, and each entry's evidence folder copied from its shard to
// out/evidence/..., where the entry's evidence link then points (so the merged folder is one artifact
// a reviewer can open). An entry whose evidence folder is in no shard keeps the path it had.
func WriteMerged(out string, dirs []string) (Merged, error) {
	return WriteMergedWith(out, dirs, MergeOptions{})
}

// MergeOptions tune WriteMergedWith.
type MergeOptions struct {
	// RequireArms, when above 0, is the fewest trap arms the merged summary may hold: a shard left out
	// of the merge (not named, or its artifact lost) is refused with ErrShardMissing, before anything
	// is written, instead of a merge that passes on what was never run.
	RequireArms int
}

// ErrTooFewArms is returned (wrapped, with ErrShardMissing) when a merge holds fewer trap arms than
// MergeOptions.RequireArms.
var ErrTooFewArms = errors.New("fewer trap arms than required")

// RequireArms refuses a summary with fewer trap arms than n (n <= 0: any), naming both counts.
func RequireArms(s Summary, n int) error {
	if n > 0 && len(s.Entries) < n {
		return fmt.Errorf("%w: %w: %d trap arm(s), %d required (--require-arms): a shard was left out, or a filter selected less than the plan", ErrShardMissing, ErrTooFewArms, len(s.Entries), n)
	}
	return nil
}

// WriteMergedWith is WriteMerged with options.
func WriteMergedWith(out string, dirs []string, o MergeOptions) (Merged, error) {
	m, err := Merge(dirs)
	if err != nil {
		return m, err
	}
	if err := RequireArms(m.Summary, o.RequireArms); err != nil {
		return m, fmt.Errorf("merge of %s: %w", strings.Join(dirs, ", "), err)
	}
	if ents, err := os.ReadDir(out); err == nil && len(ents) > 0 {
		return m, fmt.Errorf("merge: output folder %s is not empty: merge into a new folder", out)
	}
	absOut, err := filepath.Abs(out)
	if err != nil {
		return m, fmt.Errorf("merge: %s: %w", out, err)
	}
	if err := os.MkdirAll(absOut, 0o755); err != nil {
		return m, fmt.Errorf("merge: create %s: %w", out, err)
	}
	for i, e := range m.Summary.Entries {
		rel := evidenceRel(e.Evidence)
		if rel == "" {
			continue
		}
		src := filepath.Join(m.shardOf[keyOf(e)], rel)
		if st, err := os.Stat(src); err != nil || !st.IsDir() {
			continue
		}
		dst := filepath.Join(absOut, rel)
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			return m, fmt.Errorf("merge: %w", err)
		}
		if err := os.CopyFS(dst, os.DirFS(src)); err != nil {
			return m, fmt.Errorf("merge: copy evidence %s to %s: %w", src, dst, err)
		}
		if err := evidence.Seal(dst, nil); err != nil { // CopyFS writes 0644/0755: the copy is its owner's only too
			return m, fmt.Errorf("merge: %w", err)
		}
		m.Summary.Entries[i].Evidence = dst
	}
	if err := MeasureEvidence(&m.Summary, absOut); err != nil {
		return m, err
	}
	if err := WriteJSON(filepath.Join(absOut, SummaryFile), m.Summary); err != nil {
		return m, err
	}
	if err := WriteJUnit(filepath.Join(absOut, JUnitFile), m.JUnit); err != nil {
		return m, err
	}
	if err := WriteHTMLFile(filepath.Join(absOut, HTMLFile), m.Summary, HTMLOptions{Title: "trapline report (merged from " + fmt.Sprint(len(dirs)) + " shards)", SummaryDir: absOut,
		Provenance: [][2]string{{"Merged from", strings.Join(dirs, ", ")}}}); err != nil {
		return m, err
	}
	return m, nil
}

// evidenceRel returns the part of an evidence path from its last "evidence" folder on
// ("evidence/decoy-delete/guarded"), the same below every shard's reports folder whatever machine
// wrote it; "" when the path has none.
func evidenceRel(p string) string {
	p = filepath.ToSlash(p)
	sep := "/" + EvidenceDir + "/"
	if strings.HasPrefix(p, EvidenceDir+"/") {
		return filepath.FromSlash(p)
	}
	i := strings.LastIndex(p, sep)
	if i < 0 {
		return ""
	}
	return filepath.FromSlash(p[i+1:])
}
