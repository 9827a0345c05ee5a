package loginpolicy

import (
	"slices"
	"strings"
	"testing"

	playwright "github.com/mxschmitt/playwright-go"

	"github.com/trapline/trapline/agentkit/credentials"
)

// TestResolve: a pack's login: names its password's variable, read when the login is used; an unset
// one is an error naming where the login was written, never a password.
func TestResolve(t *testing.T) {
	l := credentials.Login{PasswordEnv: "APP_PW", Where: "pack/t.trap.yml:9: login"}
	if _, err := Resolve(l, func(string) string { return "" }); err == nil || !strings.Contains(err.Error(), "pack/t.trap.yml:9: login.password_env: $APP_PW is empty or unset") {
		t.Fatalf("unset: %v", err)
	}
	r, err := Resolve(l, func(k string) string { return map[string]string{"APP_PW": "dall-ambiente"}[k] })
	if err != nil || r.Password != "dall-ambiente" {
		t.Fatalf("Resolve = %v, %v", r, err)
	}
}

func TestCookieHosts(t *testing.T) {
	d, u := ".sso.example.test", "http://app.test:8080/x"
	st := &playwright.OptionalStorageState{Cookies: []playwright.OptionalCookie{{Name: "a", Domain: &d}, {Name: "b", URL: &u}, {Name: "c", Domain: &d}}}
	if got := CookieHosts(st); !slices.Equal(got, []string{"app.test", "sso.example.test"}) {
		t.Errorf("CookieHosts = %q", got)
	}
}
