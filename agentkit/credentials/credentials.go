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
	"errors"
	"fmt"
	"net/url"
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

// ErrTooLarge is matched (errors.Is) by a login or password file over its limit; it is
// policy.ErrTooLarge and traps.ErrTooLarge too.
var ErrTooLarge = userfile.ErrTooLarge

// ErrLoginFile is matched (errors.Is) by every problem Load finds in a login file (an *Error).
var ErrLoginFile = errors.New("bad login file")

// Error is one problem in a login file, located as file:line:column: field: reason, ErrLoginFile its
// Family; it never quotes the password. It is userfile.Error, the one located-error type of every
// file a user writes (policy.Error, traps.PackError).
type Error = userfile.Error

// Errors is every problem Load found in a login file.
type Errors = userfile.Errors

// The size limits of a login file and of the password file it may name, checked on the opened
// file before it is read: over one, Load's error names the file, its size and the limit
// (errors.Is(err, ErrTooLarge)).
const (
	// MaxFileBytes bounds a login file (a few lines of YAML).
	MaxFileBytes = 64 << 10
	// MaxPasswordFileBytes bounds a password_file.
	MaxPasswordFileBytes = 4 << 10
)

// loginKeys are a login file's keys; true marks a required one.
var loginKeys = map[string]bool{"url": true, "user_field": true, "password_field": true, "submit": true, "username": true,
	"password": false, "password_env": false, "password_file": false}

// Load reads a login file. The password comes from exactly one of password, password_env or
// password_file. password_env names a variable that getenv looks up: the caller passes os.Getenv (this
// package reads no environment itself) or, in a test, a map's lookup; a nil getenv makes a
// password_env an error at that field. Every problem is an *Error (file:line:column: field: reason)
// and all come back together as Errors; none names the password.
func Load(path string, getenv func(string) string) (Login, error) {
	data, err := userfile.ReadFile("login file", path, MaxFileBytes)
	var tl *userfile.TooLargeError
	switch {
	case errors.As(err, &tl):
		return Login{}, Errors{{File: path, Code: userfile.CodeTooLarge, Reason: tl.Sizes(), Err: tl, Family: ErrLoginFile}}
	case err != nil:
		return Login{}, fmt.Errorf("credentials: read %s: %w", path, err)
	}
	root, derr := userfile.Document(path, data)
	if derr != nil {
		derr.Family = ErrLoginFile
		return Login{}, Errors{derr}
	}
	fields, errs := userfile.Keys(path, root, "", loginKeys)
	fail := func(n *yaml.Node, field string, code userfile.Code, format string, args ...any) {
		errs = append(errs, &Error{File: path, Line: n.Line, Column: n.Column, Field: field, Code: code, Reason: fmt.Sprintf(format, args...)})
	}
	str := func(key string) string { // never quotes the value: it may be the password
		n := fields[key]
		switch {
		case n == nil:
			return ""
		case n.Kind != yaml.ScalarNode || n.ShortTag() == "!!null":
			fail(n, key, userfile.CodeWrongType, "want a single value")
			return ""
		case strings.TrimSpace(n.Value) == "":
			fail(n, key, userfile.CodeEmpty, "is empty")
		}
		return n.Value
	}
	l := Login{URL: str("url"), UserField: str("user_field"), PasswordField: str("password_field"), Submit: str("submit"), Username: str("username")}
	inline, env, file := str("password"), str("password_env"), str("password_file")
	var given []string
	for _, k := range []string{"password", "password_env", "password_file"} {
		if fields[k] != nil {
			given = append(given, k)
		}
	}
	if len(given) != 1 && root.Kind == yaml.MappingNode {
		fail(root, "password", userfile.CodeMissing, "give exactly one of password, password_env, password_file (got %d)", len(given))
	}
	if n := fields["url"]; n != nil && l.URL != "" {
		if u, err := url.Parse(l.URL); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			fail(n, "url", userfile.CodeInvalidValue, "%q: want an absolute http(s) URL", l.URL)
		}
	}
	switch {
	case len(given) != 1:
	case fields["password"] != nil:
		l.Password = inline
	case env != "" && getenv == nil:
		fail(fields["password_env"], "password_env", userfile.CodeInvalidValue, "no environment to read $%s from (Load was given no getenv)", env)
	case env != "":
		if l.Password = getenv(env); l.Password == "" {
			fail(fields["password_env"], "password_env", userfile.CodeEmpty, "$%s is empty or unset", env)
		}
	case file != "":
		b, err := userfile.ReadFile("password_file", file, MaxPasswordFileBytes)
		switch {
		case errors.As(err, &tl):
			errs = append(errs, &Error{File: path, Line: fields["password_file"].Line, Column: fields["password_file"].Column, Field: "password_file", Code: userfile.CodeTooLarge, Reason: tl.Error(), Err: tl})
		case err != nil:
			fail(fields["password_file"], "password_file", userfile.CodeInvalidValue, "%v", err)
		}
		l.Password = strings.TrimRight(string(b), "\r\n")
	}
	if len(errs) > 0 {
		for _, e := range errs {
			e.Family = ErrLoginFile
		}
		errs.Sort()
		return Login{}, errs
	}
	if err := l.Validate(); err != nil { // what the checks above missed, if anything
		return Login{}, fmt.Errorf("%s: %w", path, err)
	}
	return l, nil
}

// ErrRefused is the family of the login tool's refusals (wrong page, unexpected fields).
var ErrRefused = errors.New("login refused")
