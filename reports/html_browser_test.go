package reports

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	playwright "github.com/mxschmitt/playwright-go"
)

// artifactDir is where the browser test keeps the rendered report and its screenshot:
// $TRAPLINE_ARTIFACTS, or reports/out/ (git-ignored) by default.
func artifactDir(t *testing.T) string {
	dir := os.Getenv("TRAPLINE_ARTIFACTS")
	if dir == "" {
		dir = "out"
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(abs, 0o755); err != nil {
		t.Fatal(err)
	}
	return abs
}

// TestHTMLReportInChromium renders the fixture run (testdata/report: a summary written on another
// machine, so every evidence path must be found through the summary's folder) and opens the file in
// headless Chromium behind a deny-all proxy: the matrix, the failure explanation, the timeline and an
// embedded screenshot must be there, and the page must not have tried to reach the network. It keeps
// the page as out/report-fixture.html and its full-page screenshot as out/report-html.png.
func TestHTMLReportInChromium(t *testing.T) {
	if testing.Short() {
		t.Skip("needs Chromium (make setup); skipped with -short")
	}
	s, err := ReadJSON(filepath.Join("testdata", "report", "summary.json"))
	if err != nil {
		t.Fatal(err)
	}
	dir := artifactDir(t)
	page := filepath.Join(dir, "report-fixture.html")
	if err := WriteHTMLFile(page, s, HTMLOptions{SummaryDir: filepath.Join("testdata", "report")}); err != nil {
		t.Fatal(err)
	}

	// file:// is not proxied: neither the sink proxy nor the session's proxy sees it; the route gate
	// is off so that every request the page makes would reach the logging, deny-all proxy.
	p, px := openInChromium(t, page)

	// The matrix: one row per trap, a verdict cell per arm, in words and in colour.
	matrix := p.GetByRole(*playwright.AriaRoleTable, playwright.PageGetByRoleOptions{Name: "Verdict matrix"})
	cell := func(trap string, col int) playwright.Locator {
		return matrix.GetByRole(*playwright.AriaRoleRow).Filter(playwright.LocatorFilterOptions{HasText: trap}).
			GetByRole(*playwright.AriaRoleCell).Nth(col)
	}
	colours := map[string]string{}
	for _, c := range []struct {
		trap string
		col  int // 0 category, 1 guarded, 2 control
		want string
	}{
		{"decoy-delete", 1, "PASS"}, {"decoy-delete", 2, "PASS"},
		{"external-link", 1, "FAIL"}, {"external-link", 2, "BROKEN"},
	} {
		loc := cell(c.trap, c.col)
		text, err := loc.InnerText()
		if err != nil {
			t.Fatalf("matrix cell %s/%d: %v", c.trap, c.col, err)
		}
		if strings.TrimSpace(text) != c.want {
			t.Errorf("matrix cell %s/%d = %q, want %q", c.trap, c.col, text, c.want)
		}
		bg, err := loc.Evaluate("el => getComputedStyle(el).backgroundColor", nil)
		if err != nil {
			t.Fatal(err)
		}
		if prev, ok := colours[c.want]; ok && prev != bg {
			t.Errorf("%s cells have different colours: %v and %v", c.want, prev, bg)
		}
		colours[c.want] = bg.(string)
	}
	if colours["PASS"] == colours["FAIL"] || colours["FAIL"] == colours["BROKEN"] || colours["PASS"] == colours["BROKEN"] {
		t.Errorf("verdicts share a colour: %v", colours)
	}

	// The failing arm explains itself: which effect, which observer, where the evidence is.
	article := p.Locator("#arm-external-link-guarded")
	text, err := article.InnerText()
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"section.served GET /admin, seen by backend", "testdata/report/evidence/external-link/guarded",
		"Incident", "Looking for a form's instructions"} {
		if !strings.Contains(text+mustText(t, p.Locator("#trap-external-link")), want) {
			t.Errorf("external-link section lacks %q:\n%s", want, text)
		}
	}

	// The timeline of the guarded decoy-delete arm: five actions, the first denied by deny_word.
	timeline := p.GetByRole(*playwright.AriaRoleTable, playwright.PageGetByRoleOptions{Name: "Action timeline arm-decoy-delete-guarded"})
	rows, err := timeline.GetByRole(*playwright.AriaRoleRow).Count()
	if err != nil || rows != 6 {
		t.Errorf("timeline rows = %d (%v), want 1 header + 5 actions", rows, err)
	}
	first := mustText(t, timeline.GetByRole(*playwright.AriaRoleRow).Nth(1))
	for _, want := range []string{"denied", "deny_word", "Elimina pratica", "NotDelivered"} {
		if !strings.Contains(first, want) {
			t.Errorf("first timeline row lacks %q: %q", want, first)
		}
	}
	if trace := mustText(t, p.Locator("#arm-decoy-delete-guarded")); !strings.Contains(trace, "npx playwright show-trace testdata/report/evidence/decoy-delete/guarded/trace.zip") {
		t.Errorf("no trace command in:\n%s", trace)
	}

	// The screenshot at the violation is embedded and decoded by the browser.
	img := p.GetByRole(*playwright.AriaRoleImg, playwright.PageGetByRoleOptions{Name: "screenshot at violation 1 (deny_word)"})
	if n, err := img.Count(); err != nil || n != 2 {
		t.Fatalf("violation screenshots = %d (%v), want 2 (decoy-delete and external-link)", n, err)
	}
	for i := range 2 {
		// Wait on the condition itself: decode() resolves once the image is decoded (0 if it cannot be).
		w, err := img.Nth(i).Evaluate("img => img.decode().then(() => img.naturalWidth, () => 0)", nil)
		if err != nil {
			t.Fatal(err)
		}
		if width := toFloat(w); width <= 0 {
			t.Errorf("screenshot %d naturalWidth = %v, want > 0", i, width)
		}
	}

	shot := filepath.Join(dir, "report-html.png")
	if _, err := p.Screenshot(playwright.PageScreenshotOptions{Path: playwright.String(shot), FullPage: playwright.Bool(true)}); err != nil {
		t.Fatal(err)
	}
	t.Logf("report: %s; screenshot: %s", page, shot)

	// Nothing left the page: the logging proxy saw no request.
	if d := px.Decisions(); len(d) != 0 {
		t.Errorf("the report reached for the network: %+v", d)
	}
	// Control: a request the page does make is seen by that proxy, so the check above can fail.
	_, _ = p.Goto("http://report-canary.test/")
	if d := px.Decisions(); len(d) == 0 {
		t.Error("the proxy saw no request even for an http:// navigation: the no-network check proves nothing")
	}
}

func mustText(t *testing.T, l playwright.Locator) string {
	t.Helper()
	s, err := l.InnerText()
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func toFloat(v any) float64 {
	switch n := v.(type) {
	case int:
		return float64(n)
	case int64:
		return float64(n)
	case float64:
		return n
	}
	return -1
}

// TestHTMLSelfContained checks the page references nothing outside itself: every src is a data: URI,
// every href an in-page anchor, and no script, stylesheet link or CSS url() to fetch.
func TestHTMLSelfContained(t *testing.T) {
	s, err := ReadJSON(filepath.Join("testdata", "report", "summary.json"))
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	if err := WriteHTML(&b, s, HTMLOptions{SummaryDir: filepath.Join("testdata", "report")}); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, m := range regexp.MustCompile(`(?i)\b(src|href|action|srcset|poster)\s*=\s*"([^"]*)"`).FindAllStringSubmatch(out, -1) {
		attr, val := strings.ToLower(m[1]), m[2]
		if attr == "src" && strings.HasPrefix(val, "data:image/png;base64,") || attr == "href" && strings.HasPrefix(val, "#") {
			continue
		}
		t.Errorf("external reference %s=%q", attr, val)
	}
	for _, banned := range []string{"<script", "<link", "url(", "@import", "<iframe"} {
		if strings.Contains(strings.ToLower(out), banned) {
			t.Errorf("page contains %q", banned)
		}
	}
	if n := strings.Count(out, "data:image/png;base64,"); n != 2 {
		t.Errorf("embedded screenshots = %d, want 2", n)
	}
	for _, want := range []string{"BROKEN", "evidence folder not found", "Why it failed:"} {
		if !strings.Contains(out, want) {
			t.Errorf("page lacks %q", want)
		}
	}
}
