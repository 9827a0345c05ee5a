// Package credentials holds what the deterministic login tool needs: where the login page is, which
// fields to fill, and the account. The planner never sees any of it; the password is registered as a
// secret with the evidence redactor, and tracing is paused while it is typed.
//
// A login file is a secret; keep it out of the repository (mode 0600):
//
//	url: http://portale.interno.test/login
//	user_field: Utente
//	password_field: Password
//	submit: Accedi
//	username: operatore
//	password_env: PORTALE_PASSWORD   # or password_file: /run/secrets/portale
//
// A login file is at most 64 KiB (MaxFileBytes) and a password_file at most 4 KiB
// (MaxPasswordFileBytes); a larger one is refused before it is read, naming the file, its size and
// the limit.
package credentials

import (
	"bytes"
	"errors"
	"fmt"
	"net/url"
	"os"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/trapline/trapline/internal/userfile"
)

// Login describes one login form and the account to use on it.
type Login struct {
	// URL is the login page. The tool acts only on a page at exactly this host and path.
	URL string
	// UserField, PasswordField and Submit are the accessible names of the username textbox, the
	// password textbox and the submit button.
	UserField, PasswordField, Submit string
	// Username and Password are the account.
	Username, Password string
}

// String never prints the password.
func (l Login) String() string {
	return fmt.Sprintf("login %s as %s (fields %q/%q, submit %q)", l.URL, l.Username, l.UserField, l.PasswordField, l.Submit)
}

// GoString keeps the password out of %#v too.
func (l Login) GoString() string { return l.String() }

// Validate checks that every field is set and the URL is absolute http(s).
func (l Login) Validate() error {
	var missing []string
	for _, f := range []struct{ name, v string }{{"url", l.URL}, {"user_field", l.UserField}, {"password_field", l.PasswordField},
		{"submit", l.Submit}, {"username", l.Username}, {"password", l.Password}} {
		if strings.TrimSpace(f.v) == "" {
			missing = append(missing, f.name)
		}
	}
	if len(missing) > 0 {
		return fmt.Errorf("credentials: missing %s", strings.Join(missing, ", "))
	}
	u, err := url.Parse(l.URL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Errorf("credentials: url %q: want an absolute http(s) URL", l.URL)
	}
	return nil
}

// file is the YAML form of a login file.
type file struct {
	URL           string `yaml:"url"`
	UserField     string `yaml:"user_field"`
	PasswordField string `yaml:"password_field"`
	Submit        string `yaml:"submit"`
	Username      string `yaml:"username"`
	Password      string `yaml:"password"`
	PasswordEnv   string `yaml:"password_env"`
	PasswordFile  string `yaml:"password_file"`
}

// The size limits of a login file and of the password file it may name, checked on the opened
// file before it is read: over one, Load's error names the file, its size and the limit
// (errors.Is(err, ErrTooLarge)).
const (
	// MaxFileBytes bounds a login file (a few lines of YAML).
	MaxFileBytes = 64 << 10
	// MaxPasswordFileBytes bounds a password_file.
	MaxPasswordFileBytes = 4 << 10
)

// ErrTooLarge is matched (errors.Is) by a login or password file over its limit; it is
// policy.ErrTooLarge and traps.ErrTooLarge too.
var ErrTooLarge = userfile.ErrTooLarge

// Load reads a login file. The password comes from exactly one of password, password_env or
// password_file. Errors name the file and the field, never the password.
func Load(path string) (Login, error) {
	data, err := userfile.ReadFile("login file", path, MaxFileBytes)
	if errors.Is(err, ErrTooLarge) {
		return Login{}, fmt.Errorf("credentials: %w", err)
	}
	if err != nil {
		return Login{}, fmt.Errorf("credentials: read %s: %w", path, err)
	}
	var f file
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(&f); err != nil {
		return Login{}, fmt.Errorf("credentials: %s: %w", path, err)
	}
	sources := 0
	for _, s := range []string{f.Password, f.PasswordEnv, f.PasswordFile} {
		if s != "" {
			sources++
		}
	}
	if sources != 1 {
		return Login{}, fmt.Errorf("credentials: %s: give exactly one of password, password_env, password_file (got %d)", path, sources)
	}
	pass := f.Password
	switch {
	case f.PasswordEnv != "":
		pass = os.Getenv(f.PasswordEnv)
		if pass == "" {
			return Login{}, fmt.Errorf("credentials: %s: password_env: $%s is empty or unset", path, f.PasswordEnv)
		}
	case f.PasswordFile != "":
		b, err := userfile.ReadFile("password_file", f.PasswordFile, MaxPasswordFileBytes)
		if err != nil {
			return Login{}, fmt.Errorf("credentials: %s: password_file: %w", path, err)
		}
		pass = strings.TrimRight(string(b), "\r\n")
	}
	l := Login{URL: f.URL, UserField: f.UserField, PasswordField: f.PasswordField, Submit: f.Submit, Username: f.Username, Password: pass}
	if err := l.Validate(); err != nil {
		return Login{}, fmt.Errorf("%s: %w", path, err)
	}
	return l, nil
}

// ErrRefused is the family of the login tool's refusals (wrong page, unexpected fields).
var ErrRefused = errors.New("login refused")
