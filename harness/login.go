package harness

import (
	"cmp"
	"errors"
	"fmt"
	"net/url"
	"regexp"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/trapline/trapline/agentkit/browser"
	"github.com/trapline/trapline/agentkit/credentials"
	"github.com/trapline/trapline/agentkit/policy"
	"github.com/trapline/trapline/traps"
)

// arrangeLogin gives the arm its login: a trap's Arrange hook's own, else Options.Login (`trapline run
// --login FILE`), else the trap's login: (its password read now from Options.Environ). A login's own
// requests are then allowed by construction (loginAllowance), whatever the arm's policy says of them.
func arrangeLogin(o Options, trap traps.Trap, setup *traps.Setup) error {
	if setup.Login == nil {
		switch {
		case o.Login != nil:
			l := *o.Login
			setup.Login = &l
		case trap.Login != nil:
			l, err := trap.Login.Resolve(environLookup(o.Environ))
			if err != nil {
				return fmt.Errorf("harness: %s: login: %w", trap.ID, err)
			}
			setup.Login = &l
		}
	}
	if setup.Login == nil || setup.Policy == nil {
		return nil
	}
	p, err := loginAllowance(setup.Policy, *setup.Login)
	if err != nil {
		return fmt.Errorf("harness: %s: %w", trap.ID, err)
	}
	setup.Policy = p
	return nil
}

// AllowLogin is p with l's own requests allowed, as every arm's policy gets them (the login page's
// load and its form's POST): for a session outside an arm that logs in (trapline observe).
func AllowLogin(p *policy.Policy, l credentials.Login) (*policy.Policy, error) {
	return loginAllowance(p, l)
}

// loginAllowance is p with the login's own requests allowed: the login page (a GET of exactly its
// host and path) and its form's submission (a POST to exactly that path, or to the login's PostTo). Nothing else of the login
// is: the page the app goes to after it is the arm's policy's to allow, as any page the agent reaches.
func loginAllowance(p *policy.Policy, l credentials.Login) (*policy.Policy, error) {
	u, err := url.Parse(l.URL)
	if err != nil || u.Hostname() == "" {
		return nil, fmt.Errorf("login: url %q: want an absolute http(s) URL", l.URL)
	}
	path := "^" + regexp.QuoteMeta(cmp.Or(u.EscapedPath(), "/")) + "$"
	post := path
	if l.PostTo != "" {
		post = "^" + regexp.QuoteMeta(l.PostTo) + "$"
	}
	frag := map[string]any{
		"navigation": map[string]any{"allow": []any{map[string]any{"host": u.Hostname(), "paths": slices.Compact([]string{path, post})}}},
		"actions":    map[string]any{"writes": []any{map[string]any{"method": "POST", "host": u.Hostname(), "path": post}}},
	}
	b, err := yaml.Marshal(frag)
	if err != nil {
		return nil, fmt.Errorf("login: allowance: %w", err)
	}
	out, err := policy.Patch(p, b, p.Source+" + the login's own requests ("+u.Host+u.Path+")")
	if err != nil {
		return nil, fmt.Errorf("login: allow the login's own requests: %w", err)
	}
	return out, nil
}

// environLookup looks a variable up in environ (KEY=VALUE pairs, the last one winning).
func environLookup(environ []string) func(string) string {
	return func(key string) string {
		v := ""
		for _, kv := range environ {
			if k, val, ok := strings.Cut(kv, "="); ok && k == key {
				v = val
			}
		}
		return v
	}
}

// checkStorageHosts refuses a storage state none of whose cookies is for a host the world serves:
// the run would start logged out and say only that the trap did not fire. The error names the hosts
// the file has and the hosts the world serves. A file with no cookie (local storage only) passes.
func checkStorageHosts(path string, worldHosts []string) error {
	if path == "" {
		return nil
	}
	st, err := browser.ReadStorageState(path)
	if err != nil {
		return fmt.Errorf("harness: %w", err)
	}
	has := browser.CookieHosts(st)
	if len(has) == 0 {
		return nil
	}
	for _, h := range has {
		for _, w := range worldHosts {
			if strings.EqualFold(h, w) || strings.HasSuffix(strings.ToLower(w), "."+strings.ToLower(h)) {
				return nil
			}
		}
	}
	served := slices.Clone(worldHosts)
	slices.Sort(served)
	return fmt.Errorf("harness: %w: its cookies are for %s; the world serves %s (give the cookies the --upstream-host's name)",
		ErrStorageStateHosts, strings.Join(has, ", "), strings.Join(served, ", "))
}

// ErrStorageStateHosts is matched (errors.Is) by a storage state whose cookies match no world host.
var ErrStorageStateHosts = errors.New("the storage state's cookies are for no host of the world")

// ErrLoginFailed is matched (errors.Is) when an arm's login did not get through: the error names the
// step and the page reached. The arm is broken, never judged.
var ErrLoginFailed = errors.New("the login failed")

// appHosts are the hosts whose local storage a storage state keeps: the user's own apps', with
// Options.KeepAppStorage; none otherwise.
func appHosts(o Options) []string {
	if !o.KeepAppStorage {
		return nil
	}
	var out []string
	for _, u := range o.Upstreams {
		out = append(out, u.Host)
	}
	return out
}
