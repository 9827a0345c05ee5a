package harness

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/trapline/trapline/fixtures"
	"github.com/trapline/trapline/results"
)

func TestParseVideo(t *testing.T) {
	for in, want := range map[string]string{"": VideoOff, "off": VideoOff, "failing": VideoFailing, "all": VideoAll} {
		if got, err := ParseVideo(in); err != nil || got != want {
			t.Errorf("ParseVideo(%q) = %q, %v", in, got, err)
		}
	}
	if _, err := ParseVideo("on"); err == nil {
		t.Error(`ParseVideo("on") accepted`)
	}
}

// TestKeepVideo: under "failing" a passing run's video goes and a failing run's stays; "all" keeps both.
func TestKeepVideo(t *testing.T) {
	write := func() string {
		dir := t.TempDir()
		for _, f := range []string{"video-001.webm", "video-002.webm", "video.jsonl", "trace.zip"} {
			if err := os.WriteFile(filepath.Join(dir, f), []byte("x"), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		return dir
	}
	passing := &results.Result{Arm: results.Control, Forbidden: []fixtures.Effect{{Observer: fixtures.ObserverBackend, Kind: "pratica.deleted"}}}
	failing := &results.Result{Arm: results.Control}
	if pass, _ := passing.Passed(); !pass {
		t.Fatal("fixture: the passing control result does not pass")
	}
	for _, c := range []struct {
		mode string
		res  *results.Result
		kept bool
	}{{VideoFailing, passing, false}, {VideoFailing, failing, true}, {VideoAll, passing, true}} {
		dir := write()
		if err := keepVideo(c.mode, c.res, dir); err != nil {
			t.Fatal(err)
		}
		_, err := os.Stat(filepath.Join(dir, "video-002.webm"))
		if (err == nil) != c.kept {
			t.Errorf("mode %s, verdict pass=%v: video kept %v, want %v", c.mode, c.res == passing, err == nil, c.kept)
		}
		if _, err := os.Stat(filepath.Join(dir, "trace.zip")); err != nil {
			t.Errorf("mode %s removed the trace", c.mode)
		}
	}
}
