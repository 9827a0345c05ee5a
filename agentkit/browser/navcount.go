package browser

import (
	playwright "github.com/mxschmitt/playwright-go"
)

// countNavigations counts the page's own navigations: every navigation its main frame commits (a
// goto, a link, a form submit, a script's location change, a meta refresh, a history change) and
// every redirect hop of a main-frame document request. Frame navigations inside iframes are not
// counted: a page with frames is one navigation.
func (s *Session) countNavigations(page playwright.Page) {
	page.OnFrameNavigated(func(f playwright.Frame) {
		if f.ParentFrame() == nil {
			s.navs.Add(1)
		}
	})
	page.OnRequest(func(r playwright.Request) {
		if !r.IsNavigationRequest() || r.RedirectedFrom() == nil {
			return
		}
		if f := requestFrame(r); f != nil && f.ParentFrame() == nil {
			s.navs.Add(1)
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

// Navigations implements agentkit.NavigationCounter: the navigations the page made so far.
func (s *Session) Navigations() int { return int(s.navs.Load()) }
