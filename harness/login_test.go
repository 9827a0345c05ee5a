package harness

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/trapline/trapline/agentkit/credentials"
	"github.com/trapline/trapline/agentkit/policy"
	"github.com/trapline/trapline/internal/loginpolicy"
	"github.com/trapline/trapline/policies"
	"github.com/trapline/trapline/traps"
)

// TestLoginAllowance: issue 53.1. A login's own requests (its page, its form's POST) are allowed by
// construction in the arm's policy, exactly those: the next page and any other path stay the policy's.
func TestLoginAllowance(t *testing.T) {
	ref, err := policies.Named(policies.Reference)
	if err != nil {
		t.Fatal(err)
	}
	l := credentials.Login{URL: "http://app.example.test/auth/login", UserField: "U", PasswordField: "P", Submit: "S", Username: "u", Password: "pw"}
	p, err := loginpolicy.Allow(ref, l)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		method, url string
		allow       bool
	}{
		{"GET", "http://app.example.test/auth/login", true},
		{"POST", "http://app.example.test/auth/login", true},
		{"GET", "http://app.example.test/auth/login2", false},
		{"POST", "http://app.example.test/records", false},
		{"GET", "http://other.example.test/auth/login", false},
	} {
		if d := p.DecideRequest(policy.Request{Method: c.method, URL: c.url, Navigation: true}); d.Allow != c.allow {
			t.Errorf("%s %s: allow %v (%s), want %v", c.method, c.url, d.Allow, d.Rule, c.allow)
		}
	}
	if d := ref.DecideRequest(policy.Request{Method: "POST", URL: l.URL, Navigation: true}); d.Allow {
		t.Errorf("the reference policy itself was changed")
	}
	// A single-page app's login posts elsewhere (post_to): that POST, not one to the page's path.
	l.URL, l.PostTo = "http://app.example.test/#/login", "/api/login"
	if p, err = loginpolicy.Allow(ref, l); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		method, url string
		allow       bool
	}{
		{"GET", "http://app.example.test/", true},
		{"POST", "http://app.example.test/api/login", true},
		{"POST", "http://app.example.test/", false},
		{"GET", "http://app.example.test/api/records", false},
	} {
		if d := p.DecideRequest(policy.Request{Method: c.method, URL: c.url}); d.Allow != c.allow {
			t.Errorf("post_to: %s %s: allow %v (%s), want %v", c.method, c.url, d.Allow, d.Rule, c.allow)
		}
	}
}

// TestArrangeLogin: a trap's login: gets its password from Options.Environ when the arm runs; an
// unset variable is an error naming where the login was written; --login wins over the pack's.
func TestArrangeLogin(t *testing.T) {
	ref, _ := policies.Named(policies.Reference)
	trap := traps.Trap{ID: "t", Login: &credentials.Login{URL: "http://app.test/login", UserField: "U", PasswordField: "P", Submit: "S", Username: "u",
		PasswordEnv: "APP_PW", Where: "pack/t.trap.yml:9: login"}}
	s := &traps.Setup{Policy: ref}
	if err := arrangeLogin(Options{Environ: []string{"APP_PW=first", "APP_PW=dall-ambiente"}}, trap, s); err != nil || s.Login.Password != "dall-ambiente" {
		t.Fatalf("arrangeLogin = %v, %+v", err, s.Login)
	}
	err := arrangeLogin(Options{}, trap, &traps.Setup{Policy: ref})
	if err == nil || !strings.Contains(err.Error(), "pack/t.trap.yml:9: login.password_env: $APP_PW is empty or unset") {
		t.Fatalf("unset: %v", err)
	}
	flag := &credentials.Login{URL: "http://app.test/in", UserField: "U", PasswordField: "P", Submit: "S", Username: "v", Password: "x"}
	s = &traps.Setup{Policy: ref}
	if err := arrangeLogin(Options{Login: flag}, trap, s); err != nil || s.Login.Username != "v" {
		t.Fatalf("--login: %v, %+v", err, s.Login)
	}
}

// TestCheckStorageHosts: a storage state whose cookies are for no world host is refused, naming the
// hosts it has and the hosts the world serves; one cookie for a world host (or its parent domain)
// passes.
func TestCheckStorageHosts(t *testing.T) {
	p := filepath.Join(t.TempDir(), "state.json")
	write := func(body string) {
		if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	world := []string{"portale.example.test", "evil.example.test"}
	write(`{"cookies":[{"name":"s","value":"v","domain":"127.0.0.1","path":"/"}]}`)
	err := checkStorageHosts(p, world)
	if !errors.Is(err, errStorageStateHosts) || !strings.Contains(err.Error(), "its cookies are for 127.0.0.1; the world serves evil.example.test, portale.example.test") {
		t.Fatalf("checkStorageHosts = %v", err)
	}
	write(`{"cookies":[{"name":"s","value":"v","domain":".example.test","path":"/"}]}`)
	if err := checkStorageHosts(p, world); err != nil {
		t.Fatalf("parent domain: %v", err)
	}
	write(`{"cookies":[],"origins":[{"origin":"http://portale.example.test","localStorage":[{"name":"t","value":"v"}]}]}`)
	if err := checkStorageHosts(p, world); err != nil {
		t.Fatalf("local storage only: %v", err)
	}
}
