package browser

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/trapline/trapline/proxy"
)

// WholeBrowser is a Chromium of its own for one run of an agent that needs the whole browser: one
// that loads its own extension and speaks CDP to the browser from inside it (Stagehand 4). Unlike
// LaunchCDP's browser it has no DevTools port (--remote-debugging-pipe): the agent, and the
// extension it loads, reach it only through the run's filtered endpoint (URL), the same table as a
// shared browser's run (package cdpfilter: no context around the proxy, downloads only to the run's
// folder, reported to trapline whatever the agent asks), with the whole browser as the run's: its
// default context, extension loading. The browser's own traffic goes through the run's proxy too.
type WholeBrowser struct {
	s   *SharedCDP
	run *SharedRun
}

// LaunchWholeCDP starts a whole browser for one run behind o.ProxyURL, downloads to o.DownloadsDir,
// o.Extensions loaded; o otherwise as for LaunchCDP.
func LaunchWholeCDP(ctx context.Context, o CDPOptions) (*WholeBrowser, error) {
	if o.ProxyURL == "" || o.DownloadsDir == "" {
		return nil, errors.New("browser: LaunchWholeCDP needs ProxyURL and DownloadsDir")
	}
	if o.StartTimeout == 0 {
		o.StartTimeout = 20 * time.Second
	}
	exts := o.Extensions
	if exts == nil {
		exts = []string{} // a whole browser: behind the run's proxy, not the sink
	}
	s, err := launchPipe(ctx, o, exts)
	if err != nil {
		return nil, err
	}
	w := &WholeBrowser{s: s}
	fail := func(err error) (*WholeBrowser, error) { return nil, errors.Join(err, w.Close()) }
	if w.run, err = s.beginRun(SharedRunOptions{ProxyURL: o.ProxyURL, DownloadsDir: o.DownloadsDir}); err != nil {
		return fail(err)
	}
	w.run.whole = true
	startCtx, cancel := context.WithTimeout(ctx, o.StartTimeout)
	defer cancel()
	def, err := s.defaultContext(startCtx)
	if err != nil {
		return fail(err)
	}
	w.run.contexts = []string{def}
	// The default context's downloads, reported to trapline's session (see NewRun).
	if err := s.call(startCtx, "Browser.setDownloadBehavior", map[string]any{"behavior": "allow", "downloadPath": w.run.downloads, "eventsEnabled": true}, nil); err != nil {
		return fail(err)
	}
	if err := w.run.listen(); err != nil {
		return fail(err)
	}
	return w, nil
}

// defaultContext is the id of the browser's default context: its start page's.
func (s *SharedCDP) defaultContext(ctx context.Context) (string, error) {
	ts, err := s.targets(ctx)
	if err != nil {
		return "", err
	}
	for _, t := range ts {
		if t.Type == "page" && t.BrowserContextID != "" {
			return t.BrowserContextID, nil
		}
	}
	return "", errors.New("browser: the whole browser has no start page to read its default context from")
}

// URL is the run's filtered DevTools endpoint (SharedRun.URL).
func (w *WholeBrowser) URL() string { return w.run.URL() }

// Downloads are the downloads the browser began (SharedRun.Downloads).
func (w *WholeBrowser) Downloads() []Download { return w.run.Downloads() }

// CA is the CA the browser trusts.
func (w *WholeBrowser) CA() *proxy.CA { return w.s.CA() }

// extensionTargetTypes are the DevTools target types an extension's own code runs in.
var extensionTargetTypes = map[string]bool{"service_worker": true, "background_page": true}

// ExtensionIDs returns the ids of the extensions whose code runs in the browser now: the
// chrome-extension:// hosts of its service-worker and background-page targets.
func (w *WholeBrowser) ExtensionIDs(ctx context.Context) ([]string, error) {
	ts, err := w.s.targets(ctx)
	if err != nil {
		return nil, fmt.Errorf("browser: list targets: %w", err)
	}
	var ids []string
	for _, t := range ts {
		u, err := url.Parse(t.URL)
		if err != nil || u.Scheme != "chrome-extension" || !extensionTargetTypes[t.Type] {
			continue
		}
		if id := strings.ToLower(u.Host); !slices.Contains(ids, id) {
			ids = append(ids, id)
		}
	}
	return ids, nil
}

// DevToolsDoor is the door the world's proxy needs to let the browser's extensions reach the run's
// filtered endpoint (proxy.Proxy.AdmitDevTools): the door leads nowhere the agent's own endpoint does
// not, so what passes it is filtered like the agent.
func (w *WholeBrowser) DevToolsDoor() proxy.DevToolsDoor {
	return proxy.DevToolsDoor{HostPort: strings.TrimPrefix(w.run.URL(), "http://"), ExtensionIDs: w.ExtensionIDs}
}

// Close ends the run and the browser.
func (w *WholeBrowser) Close() error {
	var err error
	if w.run != nil {
		err = w.run.Close()
	}
	return errors.Join(err, w.s.Close())
}
