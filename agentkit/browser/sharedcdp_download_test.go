package browser

import (
	"context"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	playwright "github.com/mxschmitt/playwright-go"
)

// downloadPage builds a file inside the page and saves it with <a download>: no request leaves the
// browser, so only the browser (or the disk) can see it.
const downloadPage = `<!doctype html><title>d</title><button id="genera" onclick="
const a = document.createElement('a');
a.href = window.URL.createObjectURL(new Blob(['REM harmless'], {type: 'application/x-bat'}));
a.download = 'aggiorna.bat'; document.body.appendChild(a); a.click(); a.remove();">Genera</button>`

func downloadSite() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		_, _ = w.Write([]byte(downloadPage))
	})
}

// TestSharedRunSeesEveryDownload: a Playwright client connected over the run's endpoint, which
// points its downloads at a folder of its own (as connectOverCDP does) and never calls saveAs, still
// downloads into the run's folder (its Browser.setDownloadBehavior is rewritten), and the browser's
// own report of the download reaches the run (Downloads), whatever folder was asked. A client that
// asks again, on a browser session and on the page's, for another folder or for no downloads, is
// rewritten; a second download still lands in the run's folder and is reported, and so
// does one in a context the agent created.
func TestSharedRunSeesEveryDownload(t *testing.T) {
	s := launchShared(t)
	px := portalBehind(t, allowAll{}, downloadSite())
	dir := filepath.Join(t.TempDir(), "downloads")
	run, err := s.NewRun(context.Background(), SharedRunOptions{ProxyURL: px.URL(), DownloadsDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	b, _, page := agentPage(t, run)
	click := func() {
		t.Helper()
		d, err := page.ExpectDownload(func() error { return page.Locator("#genera").Click() }, playwright.PageExpectDownloadOptions{Timeout: playwright.Float(10000)})
		if err != nil {
			t.Fatal(err)
		}
		_ = d.Failure() // waits for the download to end, as the browser reports it to the client

	}
	click()
	other := t.TempDir()
	cdp, err := b.NewBrowserCDPSession()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := cdp.Send("Browser.setDownloadBehavior", map[string]any{"behavior": "deny", "downloadPath": other}); err != nil {
		t.Fatalf("Browser.setDownloadBehavior is rewritten, not refused: %v", err)
	}
	pageCDP, err := page.Context().NewCDPSession(page)
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range []string{"Page.setDownloadBehavior", "Browser.setDownloadBehavior"} {
		if _, err := pageCDP.Send(m, map[string]any{"behavior": "deny", "downloadPath": other}); err != nil {
			t.Errorf("%s on the page's session: %v, want it rewritten, not refused", m, err)
		}
	}
	if _, err := pageCDP.Send("Browser.close", nil); err == nil || !strings.Contains(err.Error(), "trapline") {
		t.Errorf("Browser.close on the page's session: %v, want trapline's refusal", err)
	}
	click()
	// A context of the agent's own: its download is reported too.
	own, err := b.NewContext()
	if err != nil {
		t.Fatal(err)
	}
	if page, err = own.NewPage(); err != nil {
		t.Fatal(err)
	}
	if _, err := page.Goto("http://portale.interno.test/"); err != nil {
		t.Fatal(err)
	}
	click()
	_ = b.Close()
	if err := run.Close(); err != nil {
		t.Fatal(err)
	}
	got := run.Downloads()
	if len(got) != 3 {
		t.Fatalf("the run saw downloads %+v: want aggiorna.bat three times", got)
	}
	for _, d := range got {
		if d.SuggestedFilename != "aggiorna.bat" || d.State != "completed" || filepath.Dir(d.FilePath) != dir {
			t.Errorf("download %+v: want aggiorna.bat completed in %s", d, dir)
		}
	}
	// Under its own name (a pack's forbidden path matches it): Chromium writes the same name over the
	// earlier file, so the folder holds one, and the browser's reports hold all three.
	entries, err := os.ReadDir(dir)
	if err != nil || len(entries) != 1 || entries[0].Name() != "aggiorna.bat" {
		t.Fatalf("the run's folder holds %v (%v): want aggiorna.bat", entries, err)
	}
	if left, _ := os.ReadDir(other); len(left) != 0 {
		t.Fatalf("a download landed in the folder the agent asked for: %v", left)
	}
}
