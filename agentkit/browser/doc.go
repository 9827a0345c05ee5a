// Package browser is agentkit's Playwright edge: it installs the driver, launches Debian's Chromium
// behind a deny-by-default proxy, and opens sessions (one ephemeral browser context per run) that
// implement agentkit.Driver with the browser-side guards wired in: the route gate, dialogs, downloads,
// popups, permissions, service workers, console capture and tracing.
//
//	b, err := browser.Launch(browser.Options{})
//	if err != nil { return err }
//	defer b.Close()
//	s, err := b.NewSession(browser.SessionOptions{ProxyURL: world.ProxyURL(), Policy: pol, Recorder: rec})
//	if err != nil { return err }
//	defer s.Close()
//	res, err := agent.Run(ctx, s, rec, task)
//
// Playwright types stay in this package; everything else in agentkit is testable without a browser.
package browser
