package browser

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	playwright "github.com/mxschmitt/playwright-go"

	"github.com/trapline/trapline/agentkit/policy"
)

type allowAll struct{}

func (allowAll) DecideRequest(policy.Request) policy.Decision {
	return policy.Decision{Allow: true, Rule: policy.RuleAllowed}
}
func (allowAll) DecideHost(string) policy.Decision {
	return policy.Decision{Allow: true, Rule: policy.RuleAllowed}
}

// TestCDPBrowserPreloadsNothing measures the LaunchCDP browser against a page whose speculation rules
// prerender /admin and prefetch /admin/, behind a proxy that lets everything through. Control (the
// preloading preference left on): Chromium requests /admin. LaunchCDP's profile: Chromium reports
// preloading disabled by preference (CDP Preload.preloadEnabledStateUpdated) and requests neither,
// within twice the time the control took from opening the page to its first /admin request.
func TestCDPBrowserPreloadsNothing(t *testing.T) {
	needChromium(t)
	if testing.Short() {
		t.Skip("drives Chromium")
	}
	var admin atomic.Int64
	mux := http.NewServeMux()
	mux.HandleFunc("/start", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, `<!doctype html><title>start</title><p>start</p><script type="speculationrules">`+
			`{"prerender": [{"source": "list", "urls": ["/admin"]}], "prefetch": [{"source": "list", "urls": ["/admin/"]}]}</script>`)
	})
	mux.HandleFunc("/admin", func(w http.ResponseWriter, r *http.Request) { admin.Add(1); fmt.Fprint(w, "<title>admin</title>") })
	mux.HandleFunc("/admin/", func(w http.ResponseWriter, r *http.Request) { admin.Add(1); fmt.Fprint(w, "<title>admin</title>") })
	px := portalBehind(t, allowAll{}, mux)
	if err := useSystemNode(); err != nil {
		t.Fatal(err)
	}
	pw, err := playwright.Run(&playwright.RunOptions{Verbose: false})
	if err != nil {
		t.Fatalf("the Playwright driver (Chromium is installed, so make setup ran): %v", err)
	}
	t.Cleanup(func() { _ = pw.Stop() })

	// run opens /start in a LaunchCDP browser and returns the first preloadEnabledStateUpdated event
	// and the time the rule set took to register.
	run := func(preloading bool, until func() bool, within time.Duration) (map[string]any, time.Duration, time.Duration, bool) {
		b, err := LaunchCDP(context.Background(), CDPOptions{ProxyURL: px.URL(), DownloadsDir: filepath.Join(t.TempDir(), "dl"), preloading: preloading, Environ: os.Environ()})
		if err != nil {
			t.Fatal(err)
		}
		defer func() { _ = b.Close() }()
		br, err := pw.Chromium.ConnectOverCDP(b.URL())
		if err != nil {
			t.Fatal(err)
		}
		defer func() { _ = br.Close() }()
		page, err := br.Contexts()[0].NewPage()
		if err != nil {
			t.Fatal(err)
		}
		cdp, err := br.Contexts()[0].NewCDPSession(page)
		if err != nil {
			t.Fatal(err)
		}
		state := make(chan map[string]any, 4)
		rules := make(chan struct{}, 4)
		cdp.On("Preload.preloadEnabledStateUpdated", func(p map[string]any) { state <- p })
		cdp.On("Preload.ruleSetUpdated", func(map[string]any) { rules <- struct{}{} })
		if _, err := cdp.Send("Preload.enable", nil); err != nil {
			t.Fatal(err)
		}
		start := time.Now()
		if _, err := page.Goto("http://portale.interno.test/start"); err != nil {
			t.Fatal(err)
		}
		var registered time.Duration
		select {
		case <-rules:
			registered = time.Since(start)
		case <-time.After(30 * time.Second):
			t.Fatal("Chromium never registered the page's rule set: the measurement proves nothing")
		}
		var st map[string]any
		select {
		case st = <-state:
		case <-time.After(10 * time.Second):
		}
		deadline := start.Add(within)
		for time.Now().Before(deadline) && !until() {
			time.Sleep(50 * time.Millisecond) // a wait on the backend's counter, bounded
		}
		return st, registered, time.Since(start), until()
	}

	_, _, took, hit := run(true, func() bool { return admin.Load() > 0 }, 30*time.Second)
	if !hit {
		t.Fatal("control: with preloading on, Chromium did not request /admin within 30 s: the measurement proves nothing")
	}
	t.Logf("control: /admin requested %d time(s), the first %s after the page was opened", admin.Load(), took.Round(time.Millisecond))
	admin.Store(0)
	st, registered, _, _ := run(false, func() bool { return admin.Load() > 0 }, 2*took)
	if st == nil || st["disabledByPreference"] != true {
		t.Errorf("LaunchCDP browser: preloadEnabledStateUpdated = %v, want disabledByPreference true", st)
	}
	if n := admin.Load(); n != 0 {
		t.Fatalf("LaunchCDP browser requested /admin %d time(s): speculation rules are not closed", n)
	}
	t.Logf("LaunchCDP browser: rule set registered %s after the page was opened, preloading %v, 0 requests for /admin within %s", registered.Round(time.Millisecond), st, (2 * took).Round(time.Millisecond))
}
