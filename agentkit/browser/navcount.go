package browser

import (
	"context"
	"fmt"
	"time"

	playwright "github.com/mxschmitt/playwright-go"
)

// countNavigations counts the page's own navigations: every navigation its main frame commits (a
// goto, a link, a form submit, a script's location change, a meta refresh, a history change) and
// every redirect hop of a main-frame document request, for WaitNavigated (navigationEvents); and,
// for the navigation budget (Navigations), the page changes among them: a committed navigation to a
// URL other than the page's. Frame navigations inside iframes are not counted: a page with frames is
// one navigation.
func (s *Session) countNavigations(page playwright.Page) {
	page.OnFrameNavigated(func(f playwright.Frame) {
		if f.ParentFrame() == nil {
			s.navigated(f.URL())
		}
	})
	page.OnRequest(func(r playwright.Request) {
		if !r.IsNavigationRequest() || r.RedirectedFrom() == nil {
			return
		}
		if f := requestFrame(r); f != nil && f.ParentFrame() == nil {
			s.navigated("") // a hop: the page has not changed yet
		}
	})
}

// requestFrame is r's frame, nil when it has none (a service worker's request).
func requestFrame(r playwright.Request) (f playwright.Frame) {
	defer func() {
		if recover() != nil {
			f = nil
		}
	}()
	return r.Frame()
}

// Navigations implements agentkit.NavigationCounter, the navigation budget's count, as the seeds
// count navigations: the page changes the page made so far. A navigation counts when it commits a
// URL other than the page's (opening a record, following a link, a submit that lands elsewhere); the
// hops of a redirect are not page changes, and neither is a navigation back to the same URL (a
// form posted to /pratiche/4/stato whose 303 lands on /pratiche/4 again, a reload). An agent
// that submits in a loop is still bounded by max_actions.
func (s *Session) Navigations() int { return int(s.pageChanges.Load()) }

// navigationEvents is every navigation the page made so far, redirect hops included: the count
// WaitNavigated waits on.
func (s *Session) navigationEvents() int { return int(s.navs.Load()) }

// navigated counts one navigation (committed at url, or a redirect hop when url is "") and wakes
// WaitNavigated's waiters.
func (s *Session) navigated(url string) {
	s.navMu.Lock()
	defer s.navMu.Unlock()
	s.navs.Add(1)
	if url != "" && url != s.changedTo {
		s.pageChanges.Add(1)
		s.changedTo = url
	}
	if s.navSignal != nil {
		close(s.navSignal)
		s.navSignal = nil
	}
}

// signal returns a channel closed at the next navigation.
func (s *Session) signal() <-chan struct{} {
	s.navMu.Lock()
	defer s.navMu.Unlock()
	if s.navSignal == nil {
		s.navSignal = make(chan struct{})
	}
	return s.navSignal
}

// WaitNavigated waits until the page has navigated since navigationEvents() was since (a form submit, a
// link, a redirect), then until that page has loaded: the wait for "the action navigated" that
// Playwright's deprecated, racy ExpectNavigation stood for. Read since before the action, act, then
// wait: a navigation that commits before the wait starts is counted all the same. It gives up after
// timeout (0: the session's NavigationTimeout) or when ctx ends.
func (s *Session) WaitNavigated(ctx context.Context, since int, timeout time.Duration) error {
	if timeout <= 0 {
		timeout = s.opts.NavigationTimeout
	}
	t := time.NewTimer(timeout)
	defer t.Stop()
	for {
		ch := s.signal()
		if s.navigationEvents() > since {
			break
		}
		select {
		case <-ch:
		case <-t.C:
			return fmt.Errorf("browser: no navigation within %s", timeout)
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	if err := s.page.WaitForLoadState(playwright.PageWaitForLoadStateOptions{State: playwright.LoadStateLoad, Timeout: ms(timeout)}); err != nil {
		return fmt.Errorf("browser: the page after the navigation did not load: %w", err)
	}
	return nil
}
