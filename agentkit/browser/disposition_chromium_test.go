package browser

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"

	"github.com/mxschmitt/playwright-go"
	"github.com/trapline/trapline/agentkit/policy"
)

// chromiumSpellings are Content-Disposition values (issue 49.3), each served with
// application/octet-stream so that Chromium downloads it; several name aggiorna.bat only in a
// spelling Go's mime package does not read. A value with a newline is sent as two headers.
var chromiumSpellings = []string{
	`attachment; filename="aggiorna.bat"`,
	`attachment; filename*=iso-8859-1''aggiorna.bat`,
	`attachment; filename*=windows-1252''aggiorna.bat`,
	`attachment; filename*=UTF-8''aggiorna%2Ebat`,
	`attachment; filename*=iso-2022-kr''aggiorna.bat`,
	`attachment; filename*=utf-7''aggiorna+AC4-bat`,
	`attachment; filename="visura.pdf"; filename*=iso-8859-1''aggiorna.bat`,
	`attachment; filename*=x-trapline''aggiorna.bat; filename="visura.pdf"`,
	`attachment; filename*0*=UTF-8''aggi; filename*1*=orna.bat`,
	`attachment; filename="=?UTF-8?B?YWdnaW9ybmEuYmF0?="`,
	`attachment; filename="=?ISO-8859-1?Q?aggiorna=2Ebat?="`,
	`attachment; filename="aggiorna%2Ebat"`,
	`attachment; filename=aggiorna ora.bat`,
	`attachment; name="aggiorna.bat"`,
	`filename="aggiorna.bat"`,
	`scarica; filename=aggiorna.bat`,
	`attachment; scarica; filename="aggiorna.bat"`,
	`attachment; filename="visura.pdf"; filename="aggiorna.bat"`,
	`attachment; filename="visura.pdf"`,
	"attachment; filename=\"visura.pdf\"\nattachment; filename=\"aggiorna.bat\"", // two headers
}

// TestChromiumSavesNoExecutableThePolicyAllows is the differential check of issue 49.3 against a
// live Chromium: every spelling above is served as a download, Chromium's own name for it is read
// (Playwright's suggestedFilename, from Browser.downloadWillBegin), and whenever that name is an
// executable the reference policy's DecideResponse must refuse the response. The names are logged:
// go test -v -run TestChromiumSavesNoExecutableThePolicyAllows ./agentkit/browser/
func TestChromiumSavesNoExecutableThePolicyAllows(t *testing.T) {
	needChromium(t)
	pol, err := policy.Load("../../policies/reference.yml")
	if err != nil {
		t.Fatal(err)
	}
	// The context's proxy is this server: it answers every proxied request itself.
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		i, err := strconv.Atoi(strings.TrimPrefix(r.URL.Path, "/d/"))
		if err != nil || i < 0 || i >= len(chromiumSpellings) {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "application/octet-stream")
		for _, v := range strings.Split(chromiumSpellings[i], "\n") { // a line each
			w.Header().Add("Content-Disposition", v)
		}
		_, _ = w.Write([]byte("MZ trapline stand-in, harmless\r\n"))
	}))
	t.Cleanup(srv.Close)
	bctx, err := sharedBrowser(t).b.NewContext(playwright.BrowserNewContextOptions{
		Proxy: &playwright.Proxy{Server: srv.URL}, AcceptDownloads: playwright.Bool(true)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = bctx.Close() })
	page, err := bctx.NewPage()
	if err != nil {
		t.Fatal(err)
	}
	for i, cd := range chromiumSpellings {
		u := fmt.Sprintf("http://files.interno.test/d/%d", i)
		name := chromiumDownloadName(t, page, u)
		h := http.Header{"Content-Type": {"application/octet-stream"}, "Content-Disposition": strings.Split(cd, "\n")}
		d := pol.DecideResponse(policy.Response{URL: u, Header: h})
		t.Logf("%-75q Chromium saves %-22q policy: %s", cd, name, d.Rule)
		if isExecutable(name) && d.Allow {
			t.Errorf("Chromium saves %q from %q and the policy allows it", name, cd)
		}
	}
}

// chromiumDownloadName navigates to u and returns the name Chromium suggests for the download it
// starts, or "" when it starts none.
func chromiumDownloadName(t *testing.T, page playwright.Page, u string) string {
	dl, err := page.ExpectDownload(func() error {
		_, _ = page.Goto(u) // a navigation that becomes a download reports an error: expected
		return nil
	}, playwright.PageExpectDownloadOptions{Timeout: playwright.Float(5000)})
	if err != nil {
		return ""
	}
	name := dl.SuggestedFilename()
	_ = dl.Cancel()
	return name
}

func isExecutable(name string) bool {
	ext := strings.ToLower(name[strings.LastIndexByte(name, '.')+1:])
	return strings.Contains(name, ".") && (ext == "bat" || ext == "exe")
}
