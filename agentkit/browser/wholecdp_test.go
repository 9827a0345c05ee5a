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

// TestWholeBrowser (issue 49.9): a whole browser has no DevTools port; its endpoint serves the run's
// table with the default context as the run's. Its pages go through the run's proxy; a context asking
// for a proxy of its own is refused; a download lands in the run's folder and is reported; the
// browser WebSocket lives at the run's own path only; an agent's close leaves the browser to trapline.
func TestWholeBrowser(t *testing.T) {
	needChromium(t)
	px := portalBehind(t, allowAll{}, downloadSite())
	dir := filepath.Join(t.TempDir(), "downloads")
	w, err := LaunchWholeCDP(context.Background(), CDPOptions{ProxyURL: px.URL(), DownloadsDir: dir, Environ: os.Environ()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = w.Close() })
	if _, err := os.Stat(filepath.Join(w.s.profile, activePortFile)); err == nil {
		t.Fatal("the whole browser announced a DevTools port")
	}
	if resp, err := http.Get(w.URL() + "/devtools/browser/trapline-run"); err != nil || resp.StatusCode != http.StatusNotFound {
		t.Fatalf("a guessed browser WebSocket path: %v %v, want 404", resp, err)
	}
	b, err := sharedBrowser(t).pw.Chromium.ConnectOverCDP(w.URL())
	if err != nil {
		t.Fatal(err)
	}
	contexts := b.Contexts()
	if len(contexts) == 0 || len(contexts[0].Pages()) == 0 {
		t.Fatalf("the endpoint shows %d contexts and no page: want the default context's start page", len(contexts))
	}
	page := contexts[0].Pages()[0]
	before := len(px.Decisions())
	if _, err := page.Goto("http://portale.interno.test/"); err != nil {
		t.Fatal(err)
	}
	if len(px.Decisions()) == before {
		t.Fatal("the default context's page bypassed the run's proxy")
	}
	d, err := page.ExpectDownload(func() error { return page.Locator("#genera").Click() })
	if err != nil {
		t.Fatal(err)
	}
	_ = d.Failure()
	if _, err := b.NewContext(playwright.BrowserNewContextOptions{Proxy: &playwright.Proxy{Server: "direct://"}}); err == nil || !strings.Contains(err.Error(), "proxyServer") {
		t.Fatalf("a context with a proxy of its own: %v, want trapline's refusal", err)
	}
	_ = b.Close()
	if got := w.Downloads(); len(got) != 1 || got[0].State != "completed" || filepath.Dir(got[0].FilePath) != dir {
		t.Fatalf("downloads %+v: want one completed in %s", got, dir)
	}
	if _, err := w.s.targets(context.Background()); err != nil {
		t.Fatalf("the browser did not outlive the agent's close: %v", err)
	}
}
