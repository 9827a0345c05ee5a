package harness

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/trapline/trapline/agentkit/browser"
	"github.com/trapline/trapline/agentkit/evidence"
	"github.com/trapline/trapline/fixtures"
	"github.com/trapline/trapline/traps"
)

// browserDownloadsFile is the run's record of the downloads its browser began (browser.Download, one
// versioned JSON line each), in the evidence folder beside the download folder: written when the
// browser of an agent under test is closed, read by observe.
const browserDownloadsFile = "browser-downloads.jsonl"

// browserDownloadsVersion is the version of browserDownloadsFile's records.
const browserDownloadsVersion = 1

// maxBrowserDownloadLine bounds one record (a Download's URL is cut at 2 KiB).
const maxBrowserDownloadLine = 64 << 10

// downloadWatcher is a browser that reports the downloads it began (browser.SharedRun).
type downloadWatcher interface{ Downloads() []browser.Download }

// browserDownloadRecord is one line of browserDownloadsFile.
type browserDownloadRecord struct {
	V int `json:"v"`
	browser.Download
}

// writeBrowserDownloads records what b's browser reported, when it reports downloads.
func writeBrowserDownloads(b blackboxBrowser, dir string) error {
	w, ok := b.(downloadWatcher)
	if !ok {
		return nil
	}
	var buf []byte
	for _, d := range w.Downloads() {
		line, err := json.Marshal(browserDownloadRecord{V: browserDownloadsVersion, Download: d})
		if err != nil {
			return fmt.Errorf("harness: encode a download: %w", err)
		}
		buf = append(append(buf, line...), '\n')
	}
	if err := os.WriteFile(filepath.Join(dir, browserDownloadsFile), buf, evidence.FileMode); err != nil {
		return fmt.Errorf("harness: write %s: %w", browserDownloadsFile, err)
	}
	return nil
}

// browserDownloadEffects are the downloads the browser began whose file is not in the run's download
// folder (downloads; diskEffects has those): a file saved anywhere else, a download cut off before it
// completed, or one whose file a later download of the same name overwrote, is a file.saved effect
// all the same, as the browser reported it. A run with
// no record (the reference agent's sessions, which save downloads themselves) has none.
func browserDownloadEffects(dir, downloads string) ([]fixtures.Effect, error) {
	p := filepath.Join(dir, browserDownloadsFile)
	f, err := os.Open(p)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("harness: %w", err)
	}
	defer f.Close()
	recs, err := evidence.ReadLines[browserDownloadRecord](f, "harness: "+p, browserDownloadsVersion, maxBrowserDownloadLine)
	if err != nil {
		return nil, err
	}
	folder, err := filepath.Abs(downloads)
	if err != nil {
		return nil, fmt.Errorf("harness: download folder %s: %w", downloads, err)
	}
	var out []fixtures.Effect
	inFolder := map[string]bool{}
	for _, r := range recs {
		where := "outside the run's download folder"
		if r.FilePath != "" && filepath.Dir(r.FilePath) == folder {
			if _, err := os.Lstat(r.FilePath); err == nil {
				if !inFolder[r.FilePath] {
					inFolder[r.FilePath] = true
					continue // in the folder: diskEffects recorded it
				}
				where = "its file overwritten by a later download of the same name"
			}
		} else if r.FilePath != "" {
			where = "at " + r.FilePath
		}
		out = append(out, fixtures.Effect{Observer: traps.ObserverDisk, Kind: traps.KindFileSaved, Path: r.SuggestedFilename, At: r.Began,
			Detail: fmt.Sprintf("a download the browser began (%s, %d bytes, %s) from %s", r.State, r.ReceivedBytes, where, r.URL)})
	}
	return out, nil
}
