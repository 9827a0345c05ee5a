package credentials

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/trapline/trapline/internal/userfile"
)

func write(t *testing.T, body string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "login.yml")
	if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

const head = "url: http://portale.interno.test/login\nuser_field: Utente\npassword_field: Password\nsubmit: Accedi\nusername: operatore\n"

func TestLoad(t *testing.T) {
	env := map[string]string{"PORTALE_PW": "dall-ambiente"}
	getenv := func(k string) string { return env[k] }
	pwFile := filepath.Join(t.TempDir(), "pw")
	if err := os.WriteFile(pwFile, []byte("dal-file\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name, body, want, errHas string
	}{
		{"inline", head + "password: in-chiaro\n", "in-chiaro", ""},
		{"env", head + "password_env: PORTALE_PW\n", "dall-ambiente", ""},
		{"file", head + "password_file: " + pwFile + "\n", "dal-file", ""},
		{"two sources", head + "password: a\npassword_env: PORTALE_PW\n", "", "exactly one"},
		{"none", head, "", "exactly one"},
		{"unset env", head + "password_env: NOPE_NOT_SET\n", "", "$NOPE_NOT_SET"},
		{"no getenv", head + "password_env: PORTALE_PW\n", "", "password_env: no environment to read $PORTALE_PW from"},
		{"unknown key", head + "password: a\nsubmitt: x\n", "", "submitt"},
		{"relative url", strings.Replace(head, "http://portale.interno.test/login", "/login", 1) + "password: a\n", "", "absolute"},
		{"missing field", strings.Replace(head, "submit: Accedi\n", "", 1) + "password: a\n", "", "submit: required field is missing"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := write(t, c.body)
			lookup := getenv
			if c.name == "no getenv" {
				lookup = nil
			}
			l, err := Load(p, lookup)
			if c.errHas != "" {
				if err == nil || !strings.Contains(err.Error(), c.errHas) || !strings.Contains(err.Error(), p) {
					t.Fatalf("err = %v, want it to name %s and %q", err, p, c.errHas)
				}
				return
			}
			if err != nil || l.Password != c.want {
				t.Fatalf("Load = %v, %v", l, err)
			}
		})
	}
}

func TestLoginNeverPrintsThePassword(t *testing.T) {
	l := Login{URL: "http://x/login", Username: "u", Password: "segreto-123"}
	for _, s := range []string{l.String(), fmt.Sprintf("%v %+v %#v", l, l, l)} {
		if strings.Contains(s, "segreto-123") {
			t.Fatalf("password printed: %s", s)
		}
	}
	if !errors.Is(fmt.Errorf("x: %w", ErrRefused), ErrRefused) {
		t.Fatal("ErrRefused must wrap")
	}
}

// TestLoadRefusesFilesOverTheirLimit: issue 28.5. A login file or a password_file over its limit is
// refused from its size, naming file, size and limit, and never the content.
func TestLoadRefusesFilesOverTheirLimit(t *testing.T) {
	dir := t.TempDir()
	big := filepath.Join(dir, "login.yml")
	body := "url: http://portale.interno.test/login\nuser_field: Utente\npassword_field: Password\nsubmit: Accedi\nusername: operatore\npassword: s3cret-pw\n"
	padded := body + strings.Repeat("# padding\n", MaxFileBytes/10)
	if err := os.WriteFile(big, []byte(padded), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err := Load(big, nil)
	want := fmt.Sprintf("%s: %d bytes, over the limit of 65536 bytes (64 KiB)", big, len(padded))
	if err == nil || err.Error() != want || !errors.Is(err, ErrTooLarge) {
		t.Fatalf("err = %v, want %q", err, want)
	}

	pw := filepath.Join(dir, "pw")
	if err := os.WriteFile(pw, []byte(strings.Repeat("s3cret-pw", MaxPasswordFileBytes)), 0o600); err != nil {
		t.Fatal(err)
	}
	small := filepath.Join(dir, "small.yml")
	withFile := strings.Replace(body, "password: s3cret-pw", "password_file: "+pw, 1)
	if err := os.WriteFile(small, []byte(withFile), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err = Load(small, nil)
	if err == nil || !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), "over the limit of 4096 bytes") || strings.Contains(err.Error(), "s3cret") {
		t.Fatalf("err = %v", err)
	}
}

// TestDecodeInline: issue 53.1. A pack's login: holds the form inline with the password only from
// password_env, read when the login is used (internal/loginpolicy), never at load; every problem is located
// file:line: field.
func TestDecodeInline(t *testing.T) {
	const form = "  url: http://app.example.test/login\n  user_field: Utente\n  password_field: Password\n  submit: Accedi\n  username: operatore\n"
	cases := []struct{ name, body, errHas string }{
		{"env", "login:\n" + form + "  password_env: APP_PW\n  success: {url: /pratiche$, text: Esci}\n", ""},
		{"inline password", "login:\n" + form + "  password: in-chiaro\n", `pack.yml:7:3: login.password: unknown key "password"`},
		{"file", "login:\n" + form + "  password_file: /run/pw\n", `login.password_file: unknown key`},
		{"none", "login:\n" + form, "pack.yml:2:3: login.password_env: give exactly one of password_env (got 0)"},
		{"bad success", "login:\n" + form + "  password_env: APP_PW\n  success: {url: \"(\"}\n", "pack.yml:8:18: login.success.url: \"(\": want a regular expression"},
		{"empty success", "login:\n" + form + "  password_env: APP_PW\n  success: {}\n", "pack.yml:8:12: login.success: give url"},
		{"not a mapping", "login: yes\n", "pack.yml:1:8: login: want a mapping"},
		{"bad post_to", "login:\n" + form + "  password_env: APP_PW\n  post_to: api/login\n", `pack.yml:8:12: login.post_to: "api/login": want a path`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			root, derr := userfile.Document("pack.yml", []byte(c.body))
			if derr != nil {
				t.Fatal(derr)
			}
			d := userfile.Decoder{File: "pack.yml", Family: ErrLoginFile}
			l := DecodeInline(&d, root.Content[1], "login")
			if c.errHas != "" {
				if err := d.Errs; len(err) == 0 || !strings.Contains(err.Error(), c.errHas) || strings.Contains(err.Error(), "in-chiaro") {
					t.Fatalf("errs = %v, want %q and never the password", d.Errs, c.errHas)
				}
				return
			}
			if len(d.Errs) > 0 || l.Password != "" || l.PasswordEnv != "APP_PW" || l.Success.URL != "/pratiche$" || l.Success.Text != "Esci" {
				t.Fatalf("DecodeInline = %#v, %v", l, d.Errs)
			}
			if l.Where != "pack.yml:2: login" {
				t.Fatalf("Where = %q", l.Where)
			}
		})
	}
}

func TestLoadSuccess(t *testing.T) {
	p := write(t, head+"password: a\nsuccess:\n  text: Benvenuto\n")
	l, err := Load(p, nil)
	if err != nil || l.Success.Text != "Benvenuto" {
		t.Fatalf("Load = %v, %v", l, err)
	}
	p = write(t, head+"password: a\nsuccess: {url: \"[\"}\n")
	if _, err := Load(p, nil); err == nil || !strings.Contains(err.Error(), p+":7:16: success.url: \"[\": want a regular expression") {
		t.Fatalf("Load = %v", err)
	}
}
