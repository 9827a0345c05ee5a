package harness

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/trapline/trapline/agentkit/browser"
	"github.com/trapline/trapline/internal/loginpolicy"
	"github.com/trapline/trapline/traps"
)

// arrangeLogin gives the arm its login: a trap's Arrange hook's own, else Options.Login (`trapline run
// --login FILE`), else the trap's login: (its password read now from Options.Environ). A login's own
// requests are then allowed by construction (loginpolicy.Allow), whatever the arm's policy says of them.
func arrangeLogin(o Options, trap traps.Trap, setup *traps.Setup) error {
	if setup.Login == nil {
		switch {
		case o.Login != nil:
			l := *o.Login
			setup.Login = &l
		case trap.Login != nil:
			l, err := loginpolicy.Resolve(*trap.Login, environLookup(o.Environ))
			if err != nil {
				return fmt.Errorf("harness: %s: login: %w", trap.ID, err)
			}
			setup.Login = &l
		}
	}
	if setup.Login == nil || setup.Policy == nil {
		return nil
	}
	p, err := loginpolicy.Allow(setup.Policy, *setup.Login)
	if err != nil {
		return fmt.Errorf("harness: %s: %w", trap.ID, err)
	}
	setup.Policy = p
	return nil
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
	has := loginpolicy.CookieHosts(st)
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
		errStorageStateHosts, strings.Join(has, ", "), strings.Join(served, ", "))
}

// errStorageStateHosts is matched (errors.Is) by a storage state whose cookies match no world host.
var errStorageStateHosts = errors.New("the storage state's cookies are for no host of the world")

// errLoginFailed is matched (errors.Is) when an arm's login did not get through: the error names the
// step and the page reached. The arm is broken, never judged.
var errLoginFailed = errors.New("the login failed")

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
