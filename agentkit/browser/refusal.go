package browser

import (
	"github.com/trapline/trapline/agentkit/evidence"
)

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
// capability, an unseen channel) with the page as it was when it was refused (refusalScreenshot): every
// line of violations.jsonl carries its page, not only the loop's denials. Callers refuse first (abort
// the request, dismiss the dialog, cancel the download) and record after: a screenshot taken while a
// dialog is open or a request is held waits on it.
func (s *Session) refuse(v evidence.Violation) {
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
func (s *Session) refusalScreenshot() string {
	if s.page == nil {
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
