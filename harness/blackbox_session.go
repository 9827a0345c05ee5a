package harness

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"

	playwright "github.com/mxschmitt/playwright-go"

	"github.com/trapline/trapline/agentkit/browser"
	"github.com/trapline/trapline/agentkit/evidence"
	"github.com/trapline/trapline/internal/loginpolicy"
	"github.com/trapline/trapline/traps"
	"github.com/trapline/trapline/world"
)

// loginDir is the folder of a black-box run's evidence that holds the harness's own login session's
// record (its violations and console; no trace, no video): the login was trapline's, not the agent's.
const loginDir = "login"

// blackboxState is the session an agent under test's browser context starts with, as the reference
// arms' sessions do: the login's (setup.Login, run by the deterministic tool in a session of
// o.Browser behind w's proxy, then read off it) or the storage state's (Options.StorageState). Its
// cookies are those of the world's hosts; its local storage that of the login's host (the session
// the login just made) and, with Options.KeepAppStorage, of the user's apps. Their values join the
// setup's secrets. Nothing without a login or a storage state.
func blackboxState(ctx context.Context, o Options, setup *traps.Setup, w world.World, dir string) ([]playwright.OptionalCookie, []playwright.Origin, error) {
	path, keep := setup.StorageState, appHosts(o)
	if setup.Login != nil {
		tmp, err := loginState(ctx, o, setup, w, dir)
		if err != nil {
			return nil, nil, err
		}
		defer os.Remove(tmp)
		path = tmp
		if u, err := url.Parse(setup.Login.URL); err == nil {
			keep = append(keep, u.Hostname())
		}
	}
	if path == "" {
		return nil, nil, nil
	}
	if err := checkStorageHosts(path, w.Hosts()); err != nil {
		return nil, nil, err
	}
	st, err := browser.ReadStorageState(path)
	if err != nil {
		return nil, nil, fmt.Errorf("harness: %w", err)
	}
	secrets, err := browser.StorageStateSecrets(path)
	if err != nil {
		return nil, nil, fmt.Errorf("harness: %w", err)
	}
	setup.Secrets = append(setup.Secrets, secrets...)
	var (
		cookies []playwright.OptionalCookie
		origins []playwright.Origin
	)
	for _, c := range st.Cookies {
		if hosts := loginpolicy.CookieHosts(&playwright.OptionalStorageState{Cookies: []playwright.OptionalCookie{c}}); len(hosts) == 1 && worldHost(hosts[0], w.Hosts()) {
			cookies = append(cookies, c)
		}
	}
	for _, og := range st.Origins {
		if u, err := url.Parse(og.Origin); err == nil && len(og.LocalStorage) > 0 && slices.ContainsFunc(keep, func(h string) bool { return strings.EqualFold(h, u.Hostname()) }) {
			origins = append(origins, og)
		}
	}
	return cookies, origins, nil
}

// worldHost says whether a cookie for host reaches a host of the world (host itself or a parent
// domain of one).
func worldHost(host string, hosts []string) bool {
	return slices.ContainsFunc(hosts, func(w string) bool {
		return strings.EqualFold(w, host) || strings.HasSuffix(strings.ToLower(w), "."+strings.ToLower(host))
	})
}

// loginState runs setup.Login in a session of o.Browser behind w's proxy and saves its storage state
// to a private temporary file outside the evidence (remove it when read). The session's policy allows
// the login's host and its form's POST only: it is trapline's, it does nothing but the login.
func loginState(ctx context.Context, o Options, setup *traps.Setup, w world.World, dir string) (string, error) {
	if o.Browser == nil {
		return "", fmt.Errorf("harness: %w: a black-box run's login needs Options.Browser (the harness's own browser logs in)", ErrInvalidOptions)
	}
	setup.Secrets = append(setup.Secrets, setup.Login.Password)
	pol, err := loginpolicy.SessionPolicy(*setup.Login)
	if err != nil {
		return "", fmt.Errorf("harness: %w", err)
	}
	rec, err := evidence.Open(filepath.Join(dir, loginDir), evidence.NewRedactor(setup.Secrets...))
	if err != nil {
		return "", err
	}
	sess, err := o.Browser.NewSession(browser.SessionOptions{ProxyURL: w.ProxyURL(), Policy: pol, Recorder: rec})
	if err != nil {
		return "", errors.Join(err, rec.Close())
	}
	f, err := os.CreateTemp("", "trapline-login-state-*.json")
	if err == nil {
		err = f.Close()
	}
	if err != nil {
		return "", errors.Join(fmt.Errorf("harness: login state: %w", err), sess.Close(), rec.Close())
	}
	err = sess.Login(ctx, *setup.Login)
	if err != nil {
		err = fmt.Errorf("harness: %w: %w", errLoginFailed, err)
	} else {
		err = sess.SaveStorageState(f.Name())
	}
	if err = errors.Join(err, sess.Close(), rec.Close()); err != nil {
		_ = os.Remove(f.Name())
		return "", err
	}
	return f.Name(), nil
}

// seedBlackbox writes origins' local storage into the black-box run's browser context (through its
// own DevTools endpoint, as an agent would connect) with the harness's own Playwright driver.
func seedBlackbox(o Options, b blackboxBrowser, origins []playwright.Origin) error {
	if o.Browser == nil {
		return fmt.Errorf("harness: %w: a black-box run's local-storage session needs Options.Browser", ErrInvalidOptions)
	}
	if wholeBrowser(o) {
		return fmt.Errorf("harness: %w: a whole browser (extensions, --whole-browser) cannot start from a login's or a storage state's local storage yet", ErrInvalidOptions)
	}
	if err := o.Browser.SeedLocalStorage(b.URL(), origins); err != nil {
		return fmt.Errorf("harness: %w", err)
	}
	return nil
}
