package browser

import (
	"context"
	"fmt"
	"net/http"
	"path/filepath"
	"testing"
	"time"

	playwright "github.com/mxschmitt/playwright-go"

	"github.com/trapline/trapline/agentkit/evidence"
	"github.com/trapline/trapline/agentkit/policy"
)

// The navigation budget counts page changes, as the seeds count them: opening a record is one; a
// form posted to the record's status endpoint whose 303 lands on the record again is none (the
// redirect's hop is no page change either); a link to another record is one; a redirect chain that
// ends on another page is one. navigationEvents, which WaitNavigated waits on, sees every hop.
func TestNavigationsCountPageChangesNotHops(t *testing.T) {
	b := sharedBrowser(t)
	pol, err := policy.Load(filepath.Join("..", "..", "policies", "permissive.yml"))
	if err != nil {
		t.Fatal(err)
	}
	px := portalBehind(t, pol, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case r.Method == http.MethodPost:
			http.Redirect(w, r, "/pratiche/4", http.StatusSeeOther)
		case r.URL.Path == "/vai":
			http.Redirect(w, r, "/vai2", http.StatusFound)
		case r.URL.Path == "/vai2":
			http.Redirect(w, r, "/pratiche/6", http.StatusFound)
		default:
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			fmt.Fprintf(w, `<!doctype html><title>%s</title><h1 id="t">%s</h1>
<form method="post" action="/pratiche/4/stato"><button id="salva">Salva</button></form>
<a id="next" href="/pratiche/5">Pratica 5</a> <a id="vai" href="/vai">Vai</a>`, r.URL.Path, r.URL.Path)
		}
	}))
	rec, err := evidence.Open(filepath.Join(t.TempDir(), "run"), evidence.NewRedactor())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = rec.Close() })
	sess, err := b.NewSession(SessionOptions{ProxyURL: px.URL(), Policy: pol, Recorder: rec})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = sess.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if res := sess.Goto(ctx, "http://portale.interno.test/pratiche/4"); res.Err != nil {
		t.Fatal(res.Err)
	}
	base := sess.Navigations()
	step := func(sel, want string, changes int) {
		t.Helper()
		since := sess.navigationEvents()
		if err := sess.Page().Locator(sel).Click(); err != nil {
			t.Fatal(err)
		}
		if err := sess.WaitNavigated(ctx, since, 0); err != nil {
			t.Fatal(err)
		}
		if err := sess.Page().Locator("#t").Filter(playwright.LocatorFilterOptions{HasText: want}).WaitFor(); err != nil {
			t.Fatal(err)
		}
		if got := sess.Navigations() - base; got != changes {
			t.Errorf("after %s: %d page changes, want %d", sel, got, changes)
		}
	}
	step("#salva", "/pratiche/4", 0) // POST, 303 back to the same record: no page change
	step("#next", "/pratiche/5", 1)  // a link to another record
	step("#vai", "/pratiche/6", 2)   // two redirect hops, one page change
	if sess.navigationEvents() < sess.Navigations()+3 {
		t.Errorf("navigationEvents %d: the hops and the same-page submit are no longer seen", sess.navigationEvents())
	}
}
