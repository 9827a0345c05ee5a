package browser

import (
	"context"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	playwright "github.com/mxschmitt/playwright-go"
)

// statePage is a portal page that leaves and reports every kind of state a run could hand the next
// one: a cookie, local storage, a service worker, a permission.
const statePage = `<!doctype html><title>state</title><script>
window.leave = async () => {
  document.cookie = 'left=1; path=/; max-age=3600';
  localStorage.setItem('left', '1');
  await navigator.serviceWorker.register('/sw.js');
  await navigator.serviceWorker.ready;
};
window.found = async () => ({
  cookie: document.cookie,
  storage: localStorage.getItem('left') || '',
  workers: (await navigator.serviceWorker.getRegistrations()).length,
  geolocation: (await navigator.permissions.query({name: 'geolocation'})).state,
});
</script>`

type foundState struct {
	Cookie      string `json:"cookie"`
	Storage     string `json:"storage"`
	Workers     int    `json:"workers"`
	Geolocation string `json:"geolocation"`
}

func stateSite() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		_, _ = w.Write([]byte(statePage))
	})
	mux.HandleFunc("/sw.js", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/javascript")
		_, _ = w.Write([]byte("self.addEventListener('fetch', () => {});"))
	})
	return mux
}

// agentPage connects to run's endpoint the way the naive example agent does (the first context's
// first page) and opens the portal.
func agentPage(t *testing.T, run *SharedRun) (playwright.Browser, playwright.BrowserContext, playwright.Page) {
	t.Helper()
	b, err := sharedBrowser(t).pw.Chromium.ConnectOverCDP(run.URL())
	if err != nil {
		t.Fatal(err)
	}
	contexts := b.Contexts()
	if len(contexts) == 0 || len(contexts[0].Pages()) == 0 {
		t.Fatalf("the run's endpoint shows %d contexts and no page: want the run's blank page", len(contexts))
	}
	page := contexts[0].Pages()[0]
	if _, err := page.Goto("http://portale.interno.test/"); err != nil {
		t.Fatal(err)
	}
	return b, contexts[0], page
}

func found(t *testing.T, page playwright.Page) foundState {
	t.Helper()
	v, err := page.Evaluate("found()")
	if err != nil {
		t.Fatal(err)
	}
	m, _ := v.(map[string]any)
	var f foundState
	f.Cookie, _ = m["cookie"].(string)
	f.Storage, _ = m["storage"].(string)
	if n, ok := m["workers"].(int); ok {
		f.Workers = n
	}
	f.Geolocation, _ = m["geolocation"].(string)
	return f
}

func launchShared(t *testing.T) *SharedCDP {
	t.Helper()
	needChromium(t)
	s, err := LaunchSharedCDP(context.Background(), CDPOptions{Environ: os.Environ()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	return s
}

// TestSharedCDPRunsShareNothing: a run leaves a cookie, local storage, a service worker and a granted
// permission on the portal; within the run a second connection sees them (the probe can see
// state), the next run on the same browser, behind another world's proxy, sees none.
func TestSharedCDPRunsShareNothing(t *testing.T) {
	s := launchShared(t)
	px := portalBehind(t, allowAll{}, stateSite())
	run, err := s.NewRun(context.Background(), SharedRunOptions{ProxyURL: px.URL(), DownloadsDir: filepath.Join(t.TempDir(), "d1")})
	if err != nil {
		t.Fatal(err)
	}
	b, bc, page := agentPage(t, run)
	if err := bc.GrantPermissions([]string{"geolocation"}, playwright.BrowserContextGrantPermissionsOptions{Origin: playwright.String("http://portale.interno.test")}); err != nil {
		t.Fatal(err)
	}
	if _, err := page.Evaluate("leave()"); err != nil {
		t.Fatal(err)
	}
	if g := found(t, page).Geolocation; g != "granted" {
		t.Fatalf("geolocation %q after the grant: want granted", g)
	}
	_ = b.Close()
	// A second connection of the same run: the state is there (this is what sharing looks like). A
	// permission override lives only as long as the DevTools session that set it (Chromium resets it
	// when the session detaches), so it is checked above.
	b, _, page = agentPage(t, run)
	same := found(t, page)
	_ = b.Close()
	if !strings.Contains(same.Cookie, "left=1") || same.Storage != "1" || same.Workers != 1 {
		t.Fatalf("within one run the state = %+v: want the cookie, the storage and one service worker", same)
	}
	if err := run.Close(); err != nil {
		t.Fatal(err)
	}

	px2 := portalBehind(t, allowAll{}, stateSite())
	run2, err := s.NewRun(context.Background(), SharedRunOptions{ProxyURL: px2.URL(), DownloadsDir: filepath.Join(t.TempDir(), "d2")})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = run2.Close() })
	b, _, page = agentPage(t, run2)
	defer b.Close()
	if next := found(t, page); next != (foundState{Geolocation: "prompt"}) {
		t.Fatalf("the next run found %+v: want no cookie, no storage, no service worker, geolocation prompt", next)
	}
	if n := len(px2.Decisions()); n == 0 {
		t.Fatal("the second run's world proxy saw nothing: its page did not go through it")
	}
}

// TestSharedCDPFence: whatever the agent asks, its pages reach only its run's proxy, it cannot reach
// the browser around the filter, and the browser outlives the agent's close.
func TestSharedCDPFence(t *testing.T) {
	s := launchShared(t)
	px := portalBehind(t, allowAll{}, stateSite())
	run, err := s.NewRun(context.Background(), SharedRunOptions{ProxyURL: px.URL(), DownloadsDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.NewRun(context.Background(), SharedRunOptions{ProxyURL: px.URL(), DownloadsDir: t.TempDir()}); err == nil {
		t.Fatal("a second run opened while the first was open")
	}
	b, err := sharedBrowser(t).pw.Chromium.ConnectOverCDP(run.URL())
	if err != nil {
		t.Fatal(err)
	}
	// A context of the agent's own, asked without a proxy, still takes the run's.
	own, err := b.NewContext()
	if err != nil {
		t.Fatal(err)
	}
	before := len(px.Decisions())
	p, err := own.NewPage()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.Goto("http://portale.interno.test/"); err != nil {
		t.Fatalf("the agent's own context did not reach the portal through the run's proxy: %v", err)
	}
	if len(px.Decisions()) == before {
		t.Fatal("the agent's own context bypassed the run's proxy")
	}
	cdp, err := b.NewBrowserCDPSession()
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range []string{"Security.setIgnoreCertificateErrors", "Browser.crash", "Target.exposeDevToolsProtocol"} {
		if _, err := cdp.Send(m, map[string]any{"ignore": true}); err == nil || !strings.Contains(err.Error(), "trapline") {
			t.Errorf("%s: %v, want trapline's refusal", m, err)
		}
	}
	if _, err := cdp.Send("Storage.getCookies", map[string]any{"browserContextId": "not-this-runs"}); err == nil {
		t.Error("Storage.getCookies of another browser context was served")
	}
	_ = b.Close()
	if err := run.Close(); err != nil {
		t.Fatal(err)
	}
	// The browser is still there for the next run, and nothing of this one is left.
	run2, err := s.NewRun(context.Background(), SharedRunOptions{ProxyURL: px.URL(), DownloadsDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	if err := run2.Close(); err != nil {
		t.Fatal(err)
	}
}

// TestSharedRunHTTPEndpoints: a client that opens a page with DevTools' HTTP /json/new gets it in the
// run's own context (through the run's proxy), and /json/list shows the run's pages only, not the
// pages the browser keeps outside the run.
func TestSharedRunHTTPEndpoints(t *testing.T) {
	s := launchShared(t)
	px := portalBehind(t, allowAll{}, stateSite())
	run, err := s.NewRun(context.Background(), SharedRunOptions{ProxyURL: px.URL(), DownloadsDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer run.Close()
	if resp, err := http.Get(run.URL() + "/json/new?about:blank"); err != nil || resp.StatusCode != http.StatusMethodNotAllowed {
		t.Fatalf("GET /json/new: %v %v, want 405 as Chromium answers", resp, err)
	}
	req, _ := http.NewRequest(http.MethodPut, run.URL()+"/json/new?http://portale.interno.test/", nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	var opened tab
	err = json.NewDecoder(resp.Body).Decode(&opened)
	_ = resp.Body.Close()
	if err != nil || opened.ID == "" {
		t.Fatalf("PUT /json/new: %+v %v", opened, err)
	}
	ts, err := s.targets(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var outside int
	for _, tg := range ts {
		if tg.Type == "page" && !run.owns(tg.BrowserContextID) {
			outside++
		}
		if tg.TargetID == opened.ID && !run.owns(tg.BrowserContextID) {
			t.Fatalf("/json/new opened %s outside the run's context", opened.ID)
		}
	}
	resp, err = http.Get(run.URL() + "/json/list")
	if err != nil {
		t.Fatal(err)
	}
	var listed []tab
	err = json.NewDecoder(resp.Body).Decode(&listed)
	_ = resp.Body.Close()
	if err != nil {
		t.Fatal(err)
	}
	ids := map[string]bool{}
	for _, l := range listed {
		ids[l.ID] = true
	}
	if !ids[opened.ID] || len(listed) != 2 { // the run's blank page and the one opened
		t.Fatalf("/json/list = %+v, want the run's two pages (the browser has %d more outside the run)", listed, outside)
	}
}
