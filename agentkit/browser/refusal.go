package browser

import (
	"fmt"
	"net/http"
	"strings"
	"time"

	playwright "github.com/mxschmitt/playwright-go"

	"github.com/trapline/trapline/agentkit/evidence"
	"github.com/trapline/trapline/proxy"
)

// ConsoleProxyRefusal is the type of the console.jsonl record of a response the world's proxy answered
// with its refusal (403 naming its rule in proxy.RuleHeader, which the proxy strips from every
// upstream response): the proxy's log is the record of the refusal and the verdict's (harness), this
// is the page as it was when the page got it, with its screenshot. It is no guard of the agent's own,
// so it is never a line of violations.jsonl.
const ConsoleProxyRefusal = "proxy_refusal"

// refusalShot is the screenshot of the session's last refusal and the page it shows: its URL,
// navigation count (navcount.go), the dispatches so far and the change counter (changes.go; known
// only on a page with one frame).
type refusalShot struct {
	path                string
	url                 string
	navs, dispatches    int64
	changes             int64
	changesKnown, taken bool
}

// refuse records a refusal of the browser edge (the route gate, a dialog, a download, a popup, a
// capability, an unseen channel) with the page as it was when it was refused (refusalScreenshot):
// every line of violations.jsonl carries its page, not only the loop's denials. undo (the abort of the
// request, the dismissal of the dialog, the cancel of the download; nil when there is none) runs
// first: a screenshot taken while a dialog is open or a request is held waits on it. The refusal is
// counted (refusing) from before undo until it is recorded, and Close waits for the count (inflight.go):
// a request the page sees settle, or a dialog answered, is in the evidence before the session ends.
func (s *Session) refuse(v evidence.Violation, undo func()) {
	s.refusing.Add(1)
	defer s.refusing.Add(-1)
	if v.Time.IsZero() {
		v.Time = time.Now() // when it was refused, not when its screenshot was ready (harness ties causes by time)
	}
	if undo != nil {
		undo()
	}
	if v.Screenshot == "" {
		v.Screenshot = s.refusalScreenshot()
	}
	s.opts.Recorder.Violation(v)
}

// refusalScreenshot saves the session's page for a refusal and returns its path ("" when it could not
// be taken). A page unchanged since the last refusal's screenshot (the same URL, navigation count and
// change counter, nothing dispatched since) is that screenshot, as the loop shares one between
// denials on an unchanged page: a page that fires ten blocked beacons at once is one picture. The
// lock is never held across the screenshot: the browser's events are answered on the goroutine that
// waits for it (a refusal inside a refusal's screenshot takes its own).
//
// While the login tool types the account (typingAccount) no screenshot is taken: the form would show
// it, and tracing and video pause then too; the refusal is recorded without one.
func (s *Session) refusalScreenshot() string {
	if s.page == nil || s.typingAccount.Load() {
		return ""
	}
	now := refusalShot{url: s.page.URL(), navs: s.navs.Load(), dispatches: s.dispatches.Load()}
	if n, err := s.changes(); err == nil {
		now.changes, now.changesKnown = n, true
	}
	s.shotMu.Lock()
	last := s.lastShot
	s.shotMu.Unlock()
	if last.taken && now.changesKnown && last.changesKnown && last.url == now.url && last.navs == now.navs &&
		last.dispatches == now.dispatches && last.changes == now.changes {
		return last.path
	}
	p, err := s.Screenshot(s.opts.Recorder.ShotName())
	if err != nil {
		return ""
	}
	now.path, now.taken = p, true
	s.shotMu.Lock()
	s.lastShot = now
	s.shotMu.Unlock()
	return p
}

// onResponse records a refusal of the world's proxy as the page got it (ConsoleProxyRefusal), with
// the page's screenshot. Headers are the provisional ones Playwright already holds: no round trip for
// the responses that are not a refusal.
func (s *Session) onResponse(r playwright.Response) {
	if r.Status() != http.StatusForbidden {
		return
	}
	rule := r.Headers()[strings.ToLower(proxy.RuleHeader)]
	if rule == "" {
		return
	}
	s.refusing.Add(1)
	defer s.refusing.Add(-1)
	req := r.Request()
	s.opts.Recorder.Console(evidence.ConsoleRecord{Type: ConsoleProxyRefusal, Page: s.pageURL(),
		Text:       fmt.Sprintf("%s %s refused by the proxy: %s", req.Method(), r.URL(), rule),
		Screenshot: s.refusalScreenshot()})
}
