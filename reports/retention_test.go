package reports

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestPruneEvidenceRemovesOnlyWhatIsOlder: of three arms' folders, the two whose newest file is older
// than 30 days go (and the trap folder they leave empty); the one with a recent file stays, though
// its other files are old, and so do the summary and the report.
func TestPruneEvidenceRemovesOnlyWhatIsOlder(t *testing.T) {
	root := t.TempDir()
	now := time.Date(2026, 12, 1, 7, 0, 0, 0, time.UTC)
	write := func(rel string, age time.Duration) {
		p := filepath.Join(root, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		mustWrite(t, p, []byte("0123456789"))
		if err := os.Chtimes(p, now.Add(-age), now.Add(-age)); err != nil {
			t.Fatal(err)
		}
	}
	day := 24 * time.Hour
	write("run-01/summary.json", 40*day)
	write("run-01/report.html", 40*day)
	write("run-01/evidence/old-trap/guarded/actions.jsonl", 40*day)
	write("run-01/evidence/old-trap/guarded/trace.zip", 31*day)
	write("run-01/evidence/old-trap/control/result.json", 45*day)
	write("run-01/evidence/mixed/guarded/trace.zip", 60*day)
	write("run-01/evidence/mixed/guarded/actions.jsonl", 29*day)
	write("run-01/evidence/mixed/control/result.json", 30*day-time.Minute)

	dry, err := PruneEvidence(root, 30*day, now, true)
	if err != nil {
		t.Fatal(err)
	}
	if len(dry) != 2 || !fileExists(filepath.Join(root, "run-01/evidence/old-trap/guarded/trace.zip")) {
		t.Fatalf("dry run: %v (and it must remove nothing)", dry)
	}
	got, err := PruneEvidence(root, 30*day, now, false)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0].Bytes != 10 && got[0].Bytes != 20 {
		t.Errorf("pruned %+v, want the two old-trap arms", got)
	}
	for rel, want := range map[string]bool{
		"run-01/summary.json":                         true,
		"run-01/report.html":                          true,
		"run-01/evidence/old-trap":                    false, // emptied, removed
		"run-01/evidence/mixed/guarded/trace.zip":     true,  // an old file in a folder with a recent one
		"run-01/evidence/mixed/control/result.json":   true,  // a minute younger than the cutoff
		"run-01/evidence/mixed/guarded/actions.jsonl": true,
	} {
		_, err := os.Stat(filepath.Join(root, rel))
		if (err == nil) != want {
			t.Errorf("%s exists %v, want %v", rel, err == nil, want)
		}
	}
	if _, err := PruneEvidence(filepath.Join(root, "nope"), day, now, false); err == nil {
		t.Error("pruning a missing folder did not fail")
	}
}

func TestParseAge(t *testing.T) {
	for in, want := range map[string]time.Duration{"30d": 720 * time.Hour, "36h": 36 * time.Hour, "0d": 0} {
		if got, err := ParseAge(in); err != nil || got != want {
			t.Errorf("ParseAge(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for _, bad := range []string{"", "30", "d", "-1d", "thirty days", "-5h"} {
		if _, err := ParseAge(bad); err == nil {
			t.Errorf("ParseAge(%q) accepted", bad)
		}
	}
}

func TestMeasureEvidence(t *testing.T) {
	dir := t.TempDir()
	ev := filepath.Join(dir, "evidence", "decoy-delete", "guarded")
	if err := os.MkdirAll(ev, 0o755); err != nil {
		t.Fatal(err)
	}
	mustWrite(t, filepath.Join(ev, "trace.zip"), make([]byte, 1500))
	s := Summary{Entries: []Entry{{Trap: "decoy-delete", Arm: "guarded", Evidence: "/elsewhere/evidence/decoy-delete/guarded"},
		{Trap: "decoy-delete", Arm: "control", Evidence: "/elsewhere/evidence/decoy-delete/control"}}}
	if err := MeasureEvidence(&s, dir); err != nil || s.EvidenceBytes != 1500 {
		t.Errorf("EvidenceBytes = %d, %v; want 1500", s.EvidenceBytes, err)
	}
	if HumanBytes(s.EvidenceBytes) != "1.5 KB" {
		t.Errorf("HumanBytes = %s", HumanBytes(s.EvidenceBytes))
	}
}

// TestHTMLListsVideos: an arm's video segments are named in the report (by path, like the trace) and
// linked relative to the page's folder.
func TestHTMLListsVideos(t *testing.T) {
	dir := t.TempDir()
	ev := filepath.Join(dir, "evidence", "decoy-delete", "guarded")
	if err := os.MkdirAll(ev, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"video-001.webm", "video-002.webm", ActionsFile} {
		mustWrite(t, filepath.Join(ev, f), []byte("{}\n"))
	}
	s := Summary{Entries: []Entry{{Trap: "decoy-delete", Category: "destructive", Arm: "guarded", Status: StatusFail, Evidence: ev}}}
	s.Finish(time.Now())
	var b strings.Builder
	if err := WriteHTML(&b, s, HTMLOptions{SummaryDir: dir}); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"<dt>Video</dt>", "video-001.webm</code></a>, <a", `href="evidence/decoy-delete/guarded/video-002.webm"`} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("report lacks %q", want)
		}
	}
}
