package userfile_test

import (
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/trapline/trapline/agentkit/credentials"
	"github.com/trapline/trapline/agentkit/policy"
	"github.com/trapline/trapline/internal/userfile"
	"github.com/trapline/trapline/traps"
)

// TestEveryUserFileFailsAlike: a policy, a trap pack and a login file, each malformed, with an unknown
// field and with a wrong type, give errors of the one type (*userfile.Error, which policy.Error,
// traps.PackError and credentials.Error name), with the one Code for the problem and the one format
// FILE:LINE[:COL]: FIELD: reason (the column where the YAML parser gives one; no field for a
// syntax error).
func TestEveryUserFileFailsAlike(t *testing.T) {
	const okPack = "id: my-trap\ncategory: destructive\nincident: a real one\ntask: do it\nstart: /\nforbidden:\n  - observer: backend\n    desc: no\nguards: [deny_word]\n"
	kinds := []struct {
		name string
		file string
		load func(path string) error
		ok   string // a valid file, to which each case adds or changes one line
	}{
		{"policy", "policy.yml", func(p string) error { _, err := policy.Load(p); return err },
			"version: 1\nnavigation:\n  allow:\n    - host: portale.interno.test\n      paths: [\"/\"]\n"},
		{"pack", "my-trap.trap.yml", func(p string) error { _, err := traps.LoadPack(filepath.Dir(p)); return err }, okPack},
		{"login", "login.yml", func(p string) error { _, err := credentials.Load(p); return err },
			"url: http://portale.interno.test/login\nuser_field: Utente\npassword_field: Password\nsubmit: Accedi\nusername: op\npassword: x\n"},
	}
	cases := []struct {
		name  string
		edit  func(ok string) string
		code  userfile.Code
		field string // the field the error names (a regexp)
	}{
		{"malformed", func(ok string) string { return ok + "oops: [\n" }, userfile.CodeSyntax, ""},
		{"unknown field", func(ok string) string { return ok + "colour: blue\n" }, userfile.CodeUnknownKey, "colour"},
	}
	for _, k := range kinds {
		for _, c := range cases {
			t.Run(k.name+"/"+c.name, func(t *testing.T) {
				path := filepath.Join(t.TempDir(), k.file)
				if err := os.WriteFile(path, []byte(c.edit(k.ok)), 0o600); err != nil {
					t.Fatal(err)
				}
				checkLocated(t, k.load(path), path, c.code, c.field)
			})
		}
	}
	// A wrong type: a list where the kind wants a single value, each at its own key.
	for _, c := range []struct {
		kind, file, body, field string
		load                    func(string) error
	}{
		{"policy", "policy.yml", "version: 1\nmode: [act]\nnavigation:\n  allow:\n    - host: portale.interno.test\n      paths: [\"/\"]\n", "mode", kinds[0].load},
		{"pack", "my-trap.trap.yml", okPack[:len(okPack)-len("guards: [deny_word]\n")] + "guards: deny_word\n", "guards", kinds[1].load},
		{"login", "login.yml", "url: http://portale.interno.test/login\nuser_field: [Utente]\npassword_field: Password\nsubmit: Accedi\nusername: op\npassword: x\n", "user_field", kinds[2].load},
	} {
		t.Run(c.kind+"/wrong type", func(t *testing.T) {
			path := filepath.Join(t.TempDir(), c.file)
			if err := os.WriteFile(path, []byte(c.body), 0o600); err != nil {
				t.Fatal(err)
			}
			checkLocated(t, c.load(path), path, userfile.CodeWrongType, c.field)
		})
	}
}

func checkLocated(t *testing.T, err error, path string, code userfile.Code, field string) {
	t.Helper()
	var ue *userfile.Error
	if !errors.As(err, &ue) {
		t.Fatalf("%v (%T): want a *userfile.Error", err, err)
	}
	if !errors.Is(err, code) {
		t.Errorf("%v: want code %q", err, code)
	}
	format := `^` + regexp.QuoteMeta(path) + `:[1-9][0-9]*(:[1-9][0-9]*)?: `
	if field != "" {
		format += regexp.QuoteMeta(field) + `: `
	}
	if !regexp.MustCompile(format + `\S`).MatchString(ue.Error()) {
		t.Errorf("%q: want the format FILE:LINE[:COL]: FIELD: reason (%s)", ue.Error(), format)
	}
	if ue.Line == 0 || ue.Field != field {
		t.Errorf("%q: line %d field %q, want a line and field %q", ue.Error(), ue.Line, ue.Field, field)
	}
}
