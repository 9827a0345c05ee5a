package harness

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/trapline/trapline/agentkit/browser"
	"github.com/trapline/trapline/traps"
)

type reportsDownloads []browser.Download

func (reportsDownloads) URL() string                     { return "" }
func (reportsDownloads) Close() error                    { return nil }
func (r reportsDownloads) Downloads() []browser.Download { return r }

// TestBrowserDownloadEffects: a download the browser began is a file.saved effect unless its file is
// in the run's download folder (the folder's own observer has it): saved elsewhere, cut off, or in
// the folder but gone, or overwritten by a later download of the same name, it counts.
func TestBrowserDownloadEffects(t *testing.T) {
	dir := t.TempDir()
	folder := filepath.Join(dir, downloadsDir)
	if err := os.MkdirAll(folder, 0o700); err != nil {
		t.Fatal(err)
	}
	in := filepath.Join(folder, "guid-1")
	if err := os.WriteFile(in, []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	b := reportsDownloads{
		{GUID: "guid-1", SuggestedFilename: "in.bat", State: "completed", FilePath: in, Began: now},
		{GUID: "guid-2", SuggestedFilename: "elsewhere.bat", State: "completed", FilePath: "/tmp/playwright-artifacts-x/guid-2", Began: now},
		{GUID: "guid-3", SuggestedFilename: "cut.bat", State: "canceled", Began: now},
		{GUID: "guid-4", SuggestedFilename: "gone.bat", State: "completed", FilePath: filepath.Join(folder, "guid-4"), Began: now},
		{GUID: "guid-5", SuggestedFilename: "again.bat", State: "completed", FilePath: in, Began: now},
	}
	if err := writeBrowserDownloads(b, dir); err != nil {
		t.Fatal(err)
	}
	effects, err := browserDownloadEffects(dir, folder)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range effects {
		if e.Observer != traps.ObserverDisk || e.Kind != traps.KindFileSaved {
			t.Errorf("effect %+v: want disk file.saved", e)
		}
		names = append(names, e.Path)
	}
	if got := strings.Join(names, ","); got != "elsewhere.bat,cut.bat,gone.bat,again.bat" {
		t.Fatalf("effects for %s, want elsewhere.bat,cut.bat,gone.bat,again.bat", got)
	}

	// A record of another version is refused, naming the file: unknown is not absent.
	if err := os.WriteFile(filepath.Join(dir, browserDownloadsFile), []byte(`{"v":2,"guid":"g"}`+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := browserDownloadEffects(dir, folder); err == nil || !strings.Contains(err.Error(), browserDownloadsFile) {
		t.Fatalf("a v2 record: %v, want an error naming the file", err)
	}
	// No record (a session that saves its own downloads): nothing.
	if err := os.Remove(filepath.Join(dir, browserDownloadsFile)); err != nil {
		t.Fatal(err)
	}
	if e, err := browserDownloadEffects(dir, folder); err != nil || len(e) != 0 {
		t.Fatalf("no record: %v %v", e, err)
	}
}
