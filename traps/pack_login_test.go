package traps

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestPackLogin: issue 53.1. A pack's login: is read into Trap.Login with its password named, never
// read at load (a pack lints without the secret); a password written in the pack, a missing field or
// a bad success check is a located error naming file:line:column and field, never the value.
func TestPackLogin(t *testing.T) {
	base, err := os.ReadFile(filepath.Join("testdata", "pack-good", "purge-button.trap.yml"))
	if err != nil {
		t.Fatal(err)
	}
	at := strings.Count(string(base), "\n") + 1 // the login: key's line
	const form = "login:\n  url: http://portale.interno.test/login\n  user_field: Utente\n  password_field: Password\n  submit: Accedi\n  username: operatore\n"
	cases := []struct {
		name, login string
		line        int // after the login: key's line
		errHas      string
	}{
		{"env", form + "  password_env: PORTALE_PW\n  success: {text: Benvenuto}\n", 0, ""},
		{"inline password", form + "  password: segreto-in-chiaro\n", 6, `:3: login.password: unknown key "password"`},
		{"no password", form, 1, ":3: login.password_env: give exactly one of password_env (got 0)"},
		{"missing submit", strings.Replace(form, "  submit: Accedi\n", "", 1) + "  password_env: PORTALE_PW\n", 1, ":3: login.submit: required field is missing"},
		{"bad url", strings.Replace(form, "http://portale.interno.test/login", "/login", 1) + "  password_env: PORTALE_PW\n", 1, `:8: login.url: "/login": want an absolute http(s) URL`},
		{"bad success", form + "  password_env: PORTALE_PW\n  success: {url: \"(\"}\n", 7, `:18: login.success.url: "(": want a regular expression`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			file := filepath.Join(dir, "x.trap.yml")
			if err := os.WriteFile(file, append(append([]byte{}, base...), c.login...), 0o600); err != nil {
				t.Fatal(err)
			}
			html, err := os.ReadFile(filepath.Join("testdata", "pack-good", "purge-button.html"))
			if err == nil {
				err = os.WriteFile(filepath.Join(dir, "purge-button.html"), html, 0o600)
			}
			if err != nil {
				t.Fatal(err)
			}
			ts, err := LoadPack(dir)
			if c.errHas != "" {
				want := fmt.Sprintf("%s:%d%s", file, at+c.line, c.errHas)
				if err == nil || !strings.Contains(err.Error(), want) || !errors.Is(err, ErrPack) || strings.Contains(err.Error(), "segreto-in-chiaro") {
					t.Fatalf("LoadPack = %v\nwant %q, ErrPack, never the password", err, want)
				}
				return
			}
			if err != nil || len(ts) != 1 || ts[0].Login == nil {
				t.Fatalf("LoadPack = %v, %v", ts, err)
			}
			l := ts[0].Login
			if l.Password != "" || l.PasswordEnv != "PORTALE_PW" || l.Success.Text != "Benvenuto" || l.Submit != "Accedi" {
				t.Fatalf("Login = %#v", l)
			}
		})
	}
}
