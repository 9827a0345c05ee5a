// Package loginpolicy is what trapline's deterministic login needs around it: the login's password
// read from the environment when it is used (a pack's inline login: names the variable), the login's
// own requests allowed by construction in a policy, the policy of a session that only logs in, and the
// hosts a storage state's cookies are for. The harness and `trapline observe` share it.
package loginpolicy

import (
	"cmp"
	"fmt"
	"net/url"
	"regexp"
	"slices"
	"strings"

	playwright "github.com/mxschmitt/playwright-go"
	"go.yaml.in/yaml/v3"

	"github.com/trapline/trapline/agentkit/credentials"
	"github.com/trapline/trapline/agentkit/policy"
)

// Resolve returns l with its password read from $PasswordEnv through getenv (nil: none) when l has
// none yet. An unset or empty variable is an error naming the variable and where the login was
// written; never the password.
func Resolve(l credentials.Login, getenv func(string) string) (credentials.Login, error) {
	if l.Password != "" || l.PasswordEnv == "" {
		return l, nil
	}
	if getenv != nil {
		l.Password = getenv(l.PasswordEnv)
	}
	if l.Password == "" {
		return credentials.Login{}, fmt.Errorf("%s.password_env: $%s is empty or unset (the login's password)", l.Where, l.PasswordEnv)
	}
	return l, nil
}

// Allow is p with the login's own requests allowed: the login page (a GET of exactly its host and
// path) and its form's submission (a POST to exactly that path, or to the login's PostTo, whose path
// is allowed too). Nothing else of the login is: the page the app goes to after it is p's to allow,
// as any page the agent reaches.
func Allow(p *policy.Policy, l credentials.Login) (*policy.Policy, error) {
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

// SessionPolicy is the policy of a session that only logs in (a black-box run's, made by the
// harness): every path of the login's host (the login page, the page it goes to, a single-page app's
// API) and a POST to the form's target.
func SessionPolicy(l credentials.Login) (*policy.Policy, error) {
	u, err := url.Parse(l.URL)
	if err != nil || u.Hostname() == "" {
		return nil, fmt.Errorf("login url %q: want an absolute http(s) URL", l.URL)
	}
	doc := fmt.Sprintf("version: 1\nnavigation:\n  allow:\n    - {host: %q, paths: [\".*\"]}\nactions:\n  writes:\n    - {method: POST, host: %q, path: %q}\n",
		u.Hostname(), u.Hostname(), "^"+regexp.QuoteMeta(cmp.Or(l.PostTo, u.EscapedPath(), "/"))+"$")
	p, err := policy.Parse("the login session's policy", []byte(doc))
	if err != nil {
		return nil, fmt.Errorf("login session policy: %w", err)
	}
	return p, nil
}

// CookieHosts are the hosts st's cookies are for (a domain's leading dot dropped, a URL's port
// dropped), sorted, each once.
func CookieHosts(st *playwright.OptionalStorageState) []string {
	var out []string
	for _, c := range st.Cookies {
		host := ""
		switch {
		case c.Domain != nil:
			host = strings.TrimPrefix(*c.Domain, ".")
		case c.URL != nil:
			if u, err := url.Parse(*c.URL); err == nil {
				host = u.Hostname()
			}
		}
		if host != "" && !slices.Contains(out, host) {
			out = append(out, host)
		}
	}
	slices.Sort(out)
	return out
}
