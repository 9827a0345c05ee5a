package reports

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	playwright "github.com/mxschmitt/playwright-go"

	"github.com/trapline/trapline/agentkit/browser"
	"github.com/trapline/trapline/agentkit/evidence"
	"github.com/trapline/trapline/agentkit/policy"
	"github.com/trapline/trapline/proxy"
)

// sharedBrowser is the package's one headless Chromium, launched by the first test that opens a
// page and closed by TestMain: each test gets a session (a fresh context) of its own, so launching a
// browser per test bought nothing.
var sharedBrowser = sync.OnceValues(func() (*browser.Browser, error) { return browser.Launch(browser.Options{Environ: os.Environ()}) })

// launchedBrowser is set once sharedBrowser has been asked for, so TestMain closes only a browser
// that was launched.
var launchedBrowser atomic.Bool

func TestMain(m *testing.M) {
	code := m.Run()
	if launchedBrowser.Load() {
		if b, err := sharedBrowser(); err == nil {
			if err := b.Close(); err != nil && code == 0 {
				fmt.Fprintln(os.Stderr, "close the shared browser:", err)
				code = 1
			}
		}
	}
	os.Exit(code)
}

// openInChromium opens the file page in headless Chromium behind a deny-all proxy (as
// TestHTMLReportInChromium does) and returns the page and that proxy.
func openInChromium(t *testing.T, page string) (playwright.Page, *proxy.Proxy) {
	t.Helper()
	launchedBrowser.Store(true)
	b, err := sharedBrowser()
	if err != nil {
		t.Fatalf("launch chromium (run make setup): %v", err)
	}
	px, err := proxy.Start(proxy.Config{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = px.Close() })
	pol, err := policy.Load(filepath.Join("..", "policies", "permissive.yml"))
	if err != nil {
		t.Fatal(err)
	}
	rec, err := evidence.Open(t.TempDir(), evidence.NewRedactor())
	if err != nil {
		t.Fatal(err)
	}
	sess, err := b.NewSession(browser.SessionOptions{ProxyURL: px.URL(), Policy: pol, Recorder: rec, Off: policy.Off(policy.GuardRouteGate)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := sess.Close(); err != nil {
			t.Error(err)
		}
		_ = rec.Close()
	})
	p := sess.Page()
	if _, err := p.Goto("file://" + page); err != nil {
		t.Fatalf("open %s: %v", page, err)
	}
	return p, px
}

func visible(t *testing.T, l playwright.Locator) bool {
	t.Helper()
	v, err := l.IsVisible()
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// TestHTMLFiltersBaselineAndWidthInChromium: the page's verdict, the failures and the baseline diff
// (regressions first) come before the matrix, the provenance folded after them; unchecking a category, verdict or agent box hides what it names
// (without a script); the page, timelines included, fits the window's width down to 800 px. It keeps
// out/report-filters.html and the screenshot out/report-filters.png.
func TestHTMLFiltersBaselineAndWidthInChromium(t *testing.T) {
	if testing.Short() {
		t.Skip("needs Chromium (make setup); skipped with -short")
	}
	s, err := ReadJSON(filepath.Join("testdata", "report", "summary.json"))
	if err != nil {
		t.Fatal(err)
	}
	s.Entries = append(s.Entries, Entry{Trap: "decoy-delete", Category: "destructive", Arm: "blackbox", Agent: "naive", Status: StatusFail,
		Effects: []string{"backend pratica.deleted POST /pratiche/4/elimina"}, Evidence: "/ci/evidence/decoy-delete/blackbox-naive"})
	s.Finish(s.Generated)
	s.EvidenceBytes = 123456
	base := s
	base.Entries = nil
	for _, e := range s.Entries {
		e.Status = StatusPass
		base.Entries = append(base.Entries, e)
	}
	cmp := Compare(base, s)
	dir := artifactDir(t)
	page := filepath.Join(dir, "report-filters.html")
	if err := WriteHTMLFile(page, s, HTMLOptions{SummaryDir: filepath.Join("testdata", "report"), Comparison: &cmp,
		Provenance: [][2]string{{"Shards", "catalog, bypass, external"}}}); err != nil {
		t.Fatal(err)
	}
	p, px := openInChromium(t, page)

	// The verdict, then the failures, then the baseline diff, all before the matrix; the provenance
	// folded (a closed <details>) after them, without an empty row.
	if v := mustText(t, p.GetByLabel("Gate verdict")); !strings.HasPrefix(v, "REGRESSION") {
		t.Errorf("the page's verdict: %q", v)
	}
	prov, err := p.Evaluate(`() => {
		const d = document.querySelector("details.provenance");
		const empty = [...d.querySelectorAll("dd")].filter(x => x.textContent.trim() === "").length;
		return [d.open ? "open" : "closed", String(empty), d.textContent];
	}`)
	if err != nil {
		t.Fatal(err)
	}
	pv := fmt.Sprint(prov)
	for _, want := range []string{"closed 0 ", "Summary schema", fmt.Sprintf("v%d", SchemaVersion), "Evidence", "123.5 KB", "Shards", "catalog, bypass, external"} {
		if !strings.Contains(pv, want) {
			t.Errorf("the folded provenance lacks %q: %q", want, pv)
		}
	}
	order, err := p.Evaluate(`() => {
		const ids = ["failures-h", "baseline-h", "matrix-h"].map(id => document.getElementById(id));
		const prov = document.querySelector("details.provenance");
		const before = (a, b) => !!(a && b && (a.compareDocumentPosition(b) & Node.DOCUMENT_POSITION_FOLLOWING));
		return before(ids[0], ids[1]) && before(ids[1], prov) && before(prov, ids[2]);
	}`)
	if err != nil || order != true {
		t.Errorf("not failures, baseline diff, provenance, matrix in that order (%v, %v)", order, err)
	}
	firstChange := mustText(t, p.Locator("#baseline-h ~ table").First())
	if !strings.Contains(firstChange, "Regressions") || !strings.Contains(firstChange, "PASS → FAIL") {
		t.Errorf("the first baseline table is not the regressions: %q", firstChange)
	}

	// Filters, without a script.
	ext, extGuarded, decoyRow := p.Locator("#trap-external-link"), p.Locator("#arm-external-link-guarded"), p.Locator("tr[data-fc]").Filter(playwright.LocatorFilterOptions{HasText: "decoy-delete"})
	naive := p.Locator("#arm-decoy-delete-blackbox-naive")
	if !visible(t, ext) || !visible(t, extGuarded) || !visible(t, decoyRow) || !visible(t, naive) {
		t.Fatal("something is hidden before any filter is touched")
	}
	box := func(name string) playwright.Locator {
		return p.GetByRole(*playwright.AriaRoleCheckbox, playwright.PageGetByRoleOptions{Name: name, Exact: playwright.Bool(true)})
	}
	if err := box("FAIL").Uncheck(); err != nil {
		t.Fatal(err)
	}
	if visible(t, extGuarded) || !visible(t, ext) {
		t.Error("unchecking FAIL did not hide the failing arm alone")
	}
	if err := box("FAIL").Check(); err != nil {
		t.Fatal(err)
	}
	if err := box("navigation").Uncheck(); err != nil {
		t.Fatal(err)
	}
	if visible(t, ext) || !visible(t, decoyRow) {
		t.Error("unchecking the navigation category did not hide external-link alone")
	}
	if err := box("naive").Uncheck(); err != nil {
		t.Fatal(err)
	}
	if visible(t, naive) || !visible(t, p.Locator("#arm-decoy-delete-guarded")) {
		t.Error("unchecking the naive agent did not hide its arm alone")
	}
	for _, name := range []string{"navigation", "naive"} {
		if err := box(name).Check(); err != nil {
			t.Fatal(err)
		}
	}

	// The width: nothing wider than the window, at 1280 and at 800 px.
	for _, w := range []int{1280, 800} {
		if err := p.SetViewportSize(w, 900); err != nil {
			t.Fatal(err)
		}
		fits, err := p.Evaluate(`() => {
			const doc = document.documentElement.scrollWidth <= window.innerWidth;
			const tl = [...document.querySelectorAll("table.timeline")].every(t => t.getBoundingClientRect().right <= window.innerWidth + 0.5);
			return doc && tl && document.querySelectorAll("table.timeline").length > 0;
		}`)
		if err != nil || fits != true {
			t.Errorf("at %d px the page or a timeline is wider than the window (%v, %v)", w, fits, err)
		}
	}
	if err := p.SetViewportSize(1280, 900); err != nil {
		t.Fatal(err)
	}
	shot := filepath.Join(dir, "report-filters.png")
	if _, err := p.Screenshot(playwright.PageScreenshotOptions{Path: playwright.String(shot), FullPage: playwright.Bool(true)}); err != nil {
		t.Fatal(err)
	}
	t.Logf("report: %s; screenshot: %s", page, shot)
	if d := px.Decisions(); len(d) != 0 {
		t.Errorf("the report reached for the network: %+v", d)
	}
}
