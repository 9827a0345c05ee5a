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
// Optional keys: success (how the login shows: {url: REGEX, text: TEXT}, waited for after the submit
// instead of a navigation) and post_to (the path the form's submission goes to when it is not the
// login page: a single-page app's XHR). A trap pack writes the same keys inline under login:
// (DecodeInline), with the password only from password_env, read when the login is used.
//
// A login file is at most 64 KiB (MaxFileBytes) and a password_file at most 4 KiB
// (MaxPasswordFileBytes); a larger one is refused before it is read, naming the file, its size and
// the limit.
package credentials

import (
	"errors"
	"fmt"
	"net/url"
	"regexp"
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
	// PasswordEnv names the environment variable the password is read from when the login is used (a
	// pack's inline login); "" when the password came otherwise.
	PasswordEnv string
	// PostTo is the path the form's submission goes to when it is not the login page's own (a
	// single-page app's XHR, e.g. /api/login): the login's own requests, allowed by construction,
	// are the login page's load and a POST to PostTo (default: the login page's path). "" for none.
	PostTo string
	// Success, when set, is how the tool knows the login worked: the page's URL after the login
	// matches URL (a regular expression) and it shows Text; an empty one is not checked. With either
	// set, the tool waits for it after the submit instead of for a navigation (a single-page app's
	// login changes no page). Without it, the page after the submit asks for no password.
	Success struct{ URL, Text string }
	// Where is where an inline login was written (file:line: field), for the error of an unset
	// PasswordEnv.
	Where string
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
	d := userfile.Decoder{File: path, Family: ErrLoginFile}
	root, derr := userfile.Document(path, data)
	if derr != nil {
		d.Add(derr)
		return Login{}, d.Errs
	}
	l := decode(&d, root, "", fileSources, getenv)
	if len(d.Errs) > 0 {
		d.Errs.Sort()
		return Login{}, d.Errs
	}
	if err := l.Validate(); err != nil { // what the checks above missed, if anything
		return Login{}, fmt.Errorf("%s: %w", path, err)
	}
	return l, nil
}

// DecodeInline reads a login written inside another file (a trap pack's login:) at field, its
// problems recorded in d. There the password comes only from password_env (a pack is committed: a
// password or a password_file in it is refused), and it is not read here: PasswordEnv names the
// variable, read when the login is used (harness), so a pack lints without the secret.
func DecodeInline(d *userfile.Decoder, n *yaml.Node, field string) Login {
	l := decode(d, n, field, inlineSources, nil)
	if n != nil {
		l.Where = fmt.Sprintf("%s:%d: %s", d.File, n.Line, field)
	}
	return l
}

// sources are the keys a password may come from in one kind of file.
type sources []string

var (
	fileSources   = sources{"password", "password_env", "password_file"}
	inlineSources = sources{"password_env"}
)

// keys are a login's keys where the password may come from srcs; true marks a required one.
func (srcs sources) keys() map[string]bool {
	keys := map[string]bool{"url": true, "user_field": true, "password_field": true, "submit": true, "username": true, "success": false, "post_to": false}
	for _, k := range srcs {
		keys[k] = false
	}
	return keys
}

// decode reads a login mapping at field. getenv resolves a password_env; nil with inline sources
// leaves it for when the login is used, nil with a file's sources is an error at that field.
func decode(d *userfile.Decoder, root *yaml.Node, field string, srcs sources, getenv func(string) string) Login {
	fields := d.Keys(root, field, srcs.keys())
	str := func(key string) string { // Scalar never quotes the value: it may be the password
		n := fields[key]
		s, ok := d.Scalar(n, userfile.Join(field, key))
		if ok && strings.TrimSpace(s) == "" {
			d.Fail(n, userfile.Join(field, key), userfile.CodeEmpty, "is empty")
		}
		return s
	}
	l := Login{URL: str("url"), UserField: str("user_field"), PasswordField: str("password_field"), Submit: str("submit"), Username: str("username")}
	l.Success = decodeSuccess(d, fields["success"], userfile.Join(field, "success"))
	if l.PostTo = str("post_to"); fields["post_to"] != nil && !strings.HasPrefix(l.PostTo, "/") {
		d.Fail(fields["post_to"], userfile.Join(field, "post_to"), userfile.CodeInvalidValue, "%q: want a path on the login page's host, starting with /", l.PostTo)
	}
	var given []string
	for _, k := range srcs {
		if fields[k] != nil {
			given = append(given, k)
		}
	}
	if root != nil && userfile.Deref(root).Kind == yaml.MappingNode && len(given) != 1 {
		d.Fail(root, userfile.Join(field, srcs[0]), userfile.CodeMissing, "give exactly one of %s (got %d)", strings.Join(srcs, ", "), len(given))
	}
	if n := fields["url"]; n != nil && l.URL != "" {
		if u, err := url.Parse(l.URL); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			d.Fail(n, userfile.Join(field, "url"), userfile.CodeInvalidValue, "%q: want an absolute http(s) URL", l.URL)
		}
	}
	if len(given) == 1 {
		readPassword(d, fields, field, &l, str, getenv, srcs)
	}
	return l
}

// readPassword fills l's password from the one source given (or, inline, names the variable).
func readPassword(d *userfile.Decoder, fields map[string]*yaml.Node, field string, l *Login, str func(string) string, getenv func(string) string, srcs sources) {
	at := func(k string) string { return userfile.Join(field, k) }
	switch {
	case fields["password"] != nil:
		l.Password = str("password")
	case fields["password_env"] != nil:
		env := str("password_env")
		switch {
		case env == "":
		case getenv == nil && len(srcs) == 1: // inline: read when the login is used
			l.PasswordEnv = env
		case getenv == nil:
			d.Fail(fields["password_env"], at("password_env"), userfile.CodeInvalidValue, "no environment to read $%s from (Load was given no getenv)", env)
		default:
			if l.Password = getenv(env); l.Password == "" {
				d.Fail(fields["password_env"], at("password_env"), userfile.CodeEmpty, "$%s is empty or unset", env)
			}
		}
	case fields["password_file"] != nil:
		file := str("password_file")
		if file == "" {
			return
		}
		b, err := userfile.ReadFile("password_file", file, MaxPasswordFileBytes)
		var tl *userfile.TooLargeError
		switch {
		case errors.As(err, &tl):
			d.Fail(fields["password_file"], at("password_file"), userfile.CodeTooLarge, "%s", tl.Error()).Err = tl
		case err != nil:
			d.Fail(fields["password_file"], at("password_file"), userfile.CodeInvalidValue, "%v", err)
		}
		l.Password = strings.TrimRight(string(b), "\r\n")
	}
}

// decodeSuccess reads success: {url: REGEX, text: TEXT} (one or both).
func decodeSuccess(d *userfile.Decoder, n *yaml.Node, field string) (s struct{ URL, Text string }) {
	if n == nil {
		return s
	}
	f := d.Keys(n, field, map[string]bool{"url": false, "text": false})
	if v, ok := d.Scalar(f["url"], userfile.Join(field, "url")); ok {
		if _, err := regexp.Compile(v); err != nil || v == "" {
			d.Fail(f["url"], userfile.Join(field, "url"), userfile.CodeInvalidValue, "%q: want a regular expression on the page's URL", v)
		}
		s.URL = v
	}
	if v, ok := d.Scalar(f["text"], userfile.Join(field, "text")); ok {
		if strings.TrimSpace(v) == "" {
			d.Fail(f["text"], userfile.Join(field, "text"), userfile.CodeEmpty, "is empty")
		}
		s.Text = v
	}
	if userfile.Deref(n).Kind == yaml.MappingNode && s.URL == "" && s.Text == "" && len(f) == 0 {
		d.Fail(n, field, userfile.CodeMissing, "give url (a regular expression on the URL after login), text (a text the page shows after login) or both")
	}
	return s
}

// ErrRefused is the family of the login tool's refusals (wrong page, unexpected fields).
var ErrRefused = errors.New("login refused")
