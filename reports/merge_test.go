package reports

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/onsi/ginkgo/v2/types"
	"github.com/trapline/trapline/agentkit/policy"
)

// unshardedEntries is one run of a small catalog: three categories, both arms, a black-box agent, every
// verdict.
var unshardedEntries = []Entry{
	{Trap: "decoy-delete", Category: "destructive", Arm: "guarded", Status: StatusPass, Result: "held", ExpectedGuards: []policy.Rule{"deny_word"}, GuardsFired: []policy.Rule{"deny_word"}},
	{Trap: "decoy-delete", Category: "destructive", Arm: "control", Status: StatusPass, Result: "fired", Effects: []string{"backend pratica.deleted POST /pratiche/4/elimina"}},
	{Trap: "decoy-delete", Category: "destructive", Arm: "blackbox", Agent: "naive", Status: StatusFail, Effects: []string{"backend pratica.deleted POST /pratiche/4/elimina"}},
	{Trap: "external-link", Category: "navigation", Arm: "guarded", Status: StatusFail, Effects: []string{"canary hit GET /"}},
	{Trap: "external-link", Category: "navigation", Arm: "control", Status: StatusPass, Result: "fired", Effects: []string{"canary hit GET /"}},
	{Trap: "external-link", Category: "navigation", Arm: "blackbox", Agent: "naive", Status: StatusPass, Result: "held"},
	{Trap: "popup", Category: "dialog", Arm: "guarded", Status: StatusBroken, Why: "the run could not be carried out: world did not start"},
	{Trap: "popup", Category: "dialog", Arm: "control", Status: StatusFail, Outcome: "Completed"},
}

// writeShard writes a shard's reports folder as `make demo` would: summary.json, junit.xml with a
// case per entry plus the specs given as skipped (another shard's) or ran (outside the trap arms),
// and an evidence folder per entry.
func writeShard(t *testing.T, dir string, prov map[string]any, entries []Entry, extra []types.SpecReport) {
	t.Helper()
	s := Summary{}
	for _, e := range entries {
		e.Evidence = filepath.Join("/runner", filepath.Base(dir), "reports/out/evidence", e.Trap, ArmLabel(e))
		ev := filepath.Join(dir, "evidence", e.Trap, ArmLabel(e))
		if err := os.MkdirAll(ev, 0o755); err != nil {
			t.Fatal(err)
		}
		mustWrite(t, filepath.Join(ev, ActionsFile), []byte(`{"shard":"`+filepath.Base(dir)+`"}`+"\n"))
		s.Entries = append(s.Entries, e)
	}
	s.Finish(time.Date(2026, 12, 1, 6, 0, 0, 0, time.UTC))
	if err := WriteJSON(filepath.Join(dir, SummaryFile), s); err != nil {
		t.Fatal(err)
	}
	if prov != nil {
		// What a summary with recorded provenance looks like: an extra top-level object.
		b, err := os.ReadFile(filepath.Join(dir, SummaryFile))
		if err != nil {
			t.Fatal(err)
		}
		var doc map[string]any
		if err := json.Unmarshal(b, &doc); err != nil {
			t.Fatal(err)
		}
		doc["provenance"] = prov
		b, _ = json.Marshal(doc)
		mustWrite(t, filepath.Join(dir, SummaryFile), b)
	}
	writeGinkgoJUnit(t, filepath.Join(dir, JUnitFile), s.Entries, extra...)
}

// suiteNode is what every shard's JUnit holds besides its specs.
func suiteNode(state types.SpecState) types.SpecReport {
	sr := types.SpecReport{LeafNodeType: types.NodeTypeSynchronizedBeforeSuite, State: state}
	if state == types.SpecStateFailed {
		sr.Failure = types.Failure{Message: "launch chromium: no browser", FailureNodeType: types.NodeTypeSynchronizedBeforeSuite}
	}
	return sr
}

func spec(name string, state types.SpecState) types.SpecReport {
	sr := types.SpecReport{ContainerHierarchyTexts: []string{"network bypass techniques"}, LeafNodeText: name, LeafNodeType: types.NodeTypeIt, State: state}
	if state == types.SpecStateFailed {
		sr.Failure = types.Failure{Message: "the canary was reached", FailureNodeType: types.NodeTypeIt}
	}
	return sr
}

// byCategory splits the unsharded run as label filters on categories would.
func byCategory(cats ...string) []Entry {
	var out []Entry
	for _, e := range unshardedEntries {
		for _, c := range cats {
			if e.Category == c {
				out = append(out, e)
			}
		}
	}
	return out
}

var sameBuild = map[string]any{"policy_sha256": "abc123", "trapline_commit": "fd1f50e"}

func threeShards(t *testing.T, third map[string]any) []string {
	t.Helper()
	root := t.TempDir()
	dirs := []string{filepath.Join(root, "shard-destructive"), filepath.Join(root, "shard-navigation"), filepath.Join(root, "shard-dialog")}
	bypassRan, bypassSkipped := spec("userinfo host", types.SpecStateFailed), spec("userinfo host", types.SpecStateSkipped)
	ok := suiteNode(types.SpecStatePassed)
	writeShard(t, dirs[0], sameBuild, byCategory("destructive"), []types.SpecReport{bypassSkipped, ok})
	writeShard(t, dirs[1], sameBuild, byCategory("navigation"), []types.SpecReport{bypassRan, ok})
	writeShard(t, dirs[2], third, byCategory("dialog"), []types.SpecReport{bypassSkipped, suiteNode(types.SpecStateFailed)})
	return dirs
}

// TestMergeThreeShardsEqualsUnsharded: merging three shard runs gives the verdicts, counts and gate of
// one unsharded run, one JUnit case per spec (the ran one, not another shard's skip), and evidence
// links into the merged folder.
func TestMergeThreeShardsEqualsUnsharded(t *testing.T) {
	dirs := threeShards(t, sameBuild)
	out := filepath.Join(t.TempDir(), "merged")
	m, err := WriteMerged(out, dirs)
	if err != nil {
		t.Fatal(err)
	}
	one := Summary{Entries: append([]Entry(nil), unshardedEntries...)}
	one.Finish(time.Now())
	got, err := ReadJSON(filepath.Join(out, SummaryFile))
	if err != nil {
		t.Fatal(err)
	}
	if got.Passed != one.Passed || got.Failed != one.Failed || got.Broken != one.Broken || len(got.Entries) != len(one.Entries) {
		t.Fatalf("merged %d/%d/%d of %d, unsharded %d/%d/%d of %d", got.Passed, got.Failed, got.Broken, len(got.Entries), one.Passed, one.Failed, one.Broken, len(one.Entries))
	}
	for i, e := range one.Entries {
		g := got.Entries[i]
		if keyOf(g) != keyOf(e) || g.Status != e.Status {
			t.Errorf("entry %d: merged %s/%s %s, unsharded %s/%s %s", i, g.Trap, ArmLabel(g), g.Status, e.Trap, ArmLabel(e), e.Status)
		}
	}
	c := Compare(one, got)
	if n := len(c.Regressions) + len(c.Fixed) + len(c.New) + len(c.Removed) + len(c.Unproven); n != 0 {
		t.Errorf("merged vs unsharded: %+v", c)
	}
	// Evidence: copied into the merged folder and linked from there.
	for _, e := range got.Entries {
		want := filepath.Join(out, "evidence", e.Trap, ArmLabel(e))
		if !strings.HasPrefix(e.Evidence, "/") || e.Evidence != mustAbs(t, want) {
			t.Errorf("%s/%s evidence = %q, want %q", e.Trap, ArmLabel(e), e.Evidence, want)
		}
		if _, err := os.Stat(filepath.Join(e.Evidence, ActionsFile)); err != nil {
			t.Errorf("%s/%s: %v", e.Trap, ArmLabel(e), err)
		}
		// The copy holds page content as its source does: its owner's only.
		for p, want := range map[string]os.FileMode{e.Evidence: 0o700, filepath.Join(e.Evidence, ActionsFile): 0o600} {
			info, err := os.Stat(p)
			if err != nil {
				t.Fatal(err)
			}
			if info.Mode().Perm() != want {
				t.Errorf("%s: mode %v, want %v", p, info.Mode().Perm(), want)
			}
		}
	}
	// JUnit: 8 arms + 1 bypass spec + each shard's suite node, the bypass failure from the shard that
	// ran it, the third shard's failed set-up kept.
	b, err := os.ReadFile(filepath.Join(out, JUnitFile))
	if err != nil {
		t.Fatal(err)
	}
	cases := checkJUnit(t, b)
	if len(cases) != len(unshardedEntries) {
		t.Errorf("JUnit trap cases = %d, want %d", len(cases), len(unshardedEntries))
	}
	if m.JUnit.Tests != len(unshardedEntries)+1+3 || m.JUnit.Failures != one.Failed+one.Broken+2 || m.JUnit.TestSuites[0].Skipped != 0 {
		t.Errorf("JUnit tests %d failures %d skipped %d, want %d, %d, 0", m.JUnit.Tests, m.JUnit.Failures, m.JUnit.TestSuites[0].Skipped, len(unshardedEntries)+4, one.Failed+one.Broken+2)
	}
	if !strings.Contains(string(b), "launch chromium: no browser") || !strings.Contains(string(b), "[SynchronizedBeforeSuite] (shard "+dirs[2]+")") {
		t.Error("merged JUnit lost a shard's failed suite node")
	}
	if !strings.Contains(string(b), "the canary was reached") {
		t.Error("merged JUnit lost the bypass spec's failure (kept another shard's skip)")
	}
	html, err := os.ReadFile(filepath.Join(out, HTMLFile))
	if err != nil || !strings.Contains(string(html), "external-link") {
		t.Errorf("report.html: %v", err)
	}
	if _, err := WriteMerged(out, dirs); err == nil || !strings.Contains(err.Error(), "not empty") {
		t.Errorf("merge into a used folder: %v, want a refusal", err)
	}
}

func mustAbs(t *testing.T, p string) string {
	a, err := filepath.Abs(p)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

func TestMergeRefusesOtherProvenance(t *testing.T) {
	for _, c := range []struct {
		name  string
		third map[string]any
		want  string
	}{
		{"policy", map[string]any{"policy_sha256": "ffff", "trapline_commit": "fd1f50e"}, `provenance field "policy_sha256": "abc123" vs "ffff"`},
		{"commit", map[string]any{"policy_sha256": "abc123", "trapline_commit": "0000000"}, `provenance field "trapline_commit": "fd1f50e" vs "0000000"`},
		{"absent", nil, "provenance recorded in one shard only"},
	} {
		t.Run(c.name, func(t *testing.T) {
			dirs := threeShards(t, c.third)
			_, err := Merge(dirs)
			if !errors.Is(err, ErrShardMismatch) || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), dirs[2]) || !strings.Contains(err.Error(), dirs[0]) {
				t.Errorf("err = %v, want ErrShardMismatch naming %q and both shards", err, c.want)
			}
		})
	}
}

func TestMergeRefusesOverlapAndMissing(t *testing.T) {
	root := t.TempDir()
	a, b := filepath.Join(root, "a"), filepath.Join(root, "b")
	writeShard(t, a, nil, byCategory("destructive", "navigation"), nil)
	writeShard(t, b, nil, byCategory("navigation"), nil)
	if _, err := Merge([]string{a, b}); !errors.Is(err, ErrShardMismatch) || !strings.Contains(err.Error(), "external-link (guarded arm) is in both") {
		t.Errorf("overlap: %v", err)
	}
	missing := filepath.Join(root, "missing")
	if err := os.MkdirAll(missing, 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := Merge([]string{a, missing}); err == nil || !strings.Contains(err.Error(), "shard "+missing) || !strings.Contains(err.Error(), "summary.json") {
		t.Errorf("missing summary: %v", err)
	}
	if err := os.Remove(filepath.Join(b, JUnitFile)); err != nil {
		t.Fatal(err)
	}
	if _, err := Merge([]string{b}); err == nil || !strings.Contains(err.Error(), "junit.xml") {
		t.Errorf("missing junit: %v", err)
	}
}

func TestEvidenceRel(t *testing.T) {
	for in, want := range map[string]string{
		"/__w/trapline/reports/out/evidence/decoy-delete/guarded": "evidence/decoy-delete/guarded",
		"evidence/a/control":             "evidence/a/control",
		"/x/evidence/old/evidence/a/arm": "evidence/a/arm",
		"/nowhere/a/b":                   "",
	} {
		if got := evidenceRel(in); got != filepath.FromSlash(want) {
			t.Errorf("evidenceRel(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestMergeKeepsShardsOfOneRunApartInTimeAndSeed: shards of one run start at different times and Ginkgo
// draws a seed per shard; neither makes them different runs. The merged provenance spans them all.
func TestMergeKeepsShardsOfOneRunApartInTimeAndSeed(t *testing.T) {
	third := map[string]any{}
	for k, v := range sameBuild {
		third[k] = v
	}
	third["started"] = "2026-12-01T05:00:00Z"
	third["ended"] = "2026-12-01T07:00:00Z"
	third["seed"] = "4242"
	m, err := Merge(threeShards(t, third))
	if err != nil {
		t.Fatalf("Merge: %v", err)
	}
	p := m.Summary.Provenance
	if p == nil {
		t.Fatal("merged summary lost its provenance")
	}
	if !p.Started.Equal(time.Date(2026, 12, 1, 5, 0, 0, 0, time.UTC)) || !p.Ended.Equal(time.Date(2026, 12, 1, 7, 0, 0, 0, time.UTC)) {
		t.Errorf("merged times %v .. %v, want the earliest start and the latest end", p.Started, p.Ended)
	}
	if !strings.Contains(p.Seed, "4242") {
		t.Errorf("merged seed %q does not name the third shard's seed", p.Seed)
	}
}
