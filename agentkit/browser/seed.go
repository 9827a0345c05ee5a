package browser

import (
	"errors"
	"fmt"

	playwright "github.com/mxschmitt/playwright-go"
)

// SeedLocalStorage writes origins' local storage into the default context of the browser at cdpURL
// (a black-box run's DevTools endpoint, SharedRun.URL, before its agent connects): the test account's
// session where a single-page app keeps it. For each origin a page of that context loads the
// origin's root as the driver itself answers it (Page.Route fulfils it: no request leaves the
// browser, none reaches the world's proxy), sets the entries and closes. The values are secrets:
// never logged.
func (b *Browser) SeedLocalStorage(cdpURL string, origins []playwright.Origin) (err error) {
	if len(origins) == 0 {
		return nil
	}
	remote, err := b.pw.Chromium.ConnectOverCDP(cdpURL)
	if err != nil {
		return fmt.Errorf("browser: seed local storage: connect: %w", err)
	}
	defer func() { err = errors.Join(err, remote.Close()) }()
	ctxs := remote.Contexts()
	if len(ctxs) == 0 {
		return errors.New("browser: seed local storage: the run's browser has no context")
	}
	page, err := ctxs[0].NewPage()
	if err != nil {
		return fmt.Errorf("browser: seed local storage: new page: %w", err)
	}
	defer func() { err = errors.Join(err, page.Close()) }()
	for _, o := range origins {
		if err := seedOrigin(page, o); err != nil {
			return fmt.Errorf("browser: seed local storage of %s: %w", o.Origin, err)
		}
	}
	return nil
}

// seedOrigin loads o's origin in page, answered by the driver, and sets its entries.
func seedOrigin(page playwright.Page, o playwright.Origin) error {
	root := o.Origin + "/"
	fulfil := func(r playwright.Route) {
		_ = r.Fulfill(playwright.RouteFulfillOptions{Status: playwright.Int(200), ContentType: playwright.String("text/html"), Body: "<!doctype html><title>seed</title>"})
	}
	if err := page.Route(root, fulfil); err != nil {
		return err
	}
	defer func() { _ = page.Unroute(root) }()
	if _, err := page.Goto(root); err != nil {
		return err
	}
	entries := map[string]any{} // the driver serialises map[string]any only
	for _, kv := range o.LocalStorage {
		entries[kv.Name] = kv.Value
	}
	_, err := page.Evaluate(`(e) => { for (const [k, v] of Object.entries(e)) localStorage.setItem(k, v); }`, entries)
	return err
}
