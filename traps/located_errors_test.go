package traps

import (
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/trapline/trapline/agentkit/credentials"
	"github.com/trapline/trapline/agentkit/policy"
)

// TestEveryUserFileHasTheSameLocatedError: issue 29.4. A malformed policy, trap pack and login file
// are read by the one strict YAML reader (userfile.Document, userfile.Keys) and give errors of the one
// type (policy.Error, traps.PackError and credentials.Error are userfile.Error), the same format
// FILE:LINE:COL: FIELD: reason (a syntax error has no field and no column: the YAML parser gives its
// line only) and the same codes, for a malformed file, an unknown, duplicate or wrongly typed field;
// each kind keeps its own family.
func TestEveryUserFileHasTheSameLocatedError(t *testing.T) {
	dir := t.TempDir()
	pack, err := os.ReadFile(filepath.Join("testdata", "pack-good", "purge-button.trap.yml"))
	if err != nil {
		t.Fatal(err)
	}
	loginHead := "url: http://portale.interno.test/login\nuser_field: Utente\npassword_field: Password\nsubmit: Accedi\nusername: operatore\npassword: s3cret\n"
	loaders := map[string]struct {
		load   func(path string) error
		name   string
		family error
	}{
		"policy": {func(p string) error { _, err := policy.Load(p); return err }, "policy.yml", nil},
		"pack": {func(p string) error {
			_, err := LoadPack(filepath.Dir(p))
			return err
		}, "x.trap.yml", ErrPack},
		"login": {func(p string) error { _, err := credentials.Load(p, os.Getenv); return err }, "login.yml", credentials.ErrLoginFile},
	}
	cases := []struct {
		kind, body, field string
		line              int
		code              policy.Code
	}{
		{"policy", "version: 1\nnavigation:\n  alow: []\n", "navigation.alow", 3, policy.CodeUnknownKey},
		{"pack", string(pack) + "extra_key: 1\n", "extra_key", strings.Count(string(pack), "\n") + 1, policy.CodeUnknownKey},
		{"login", loginHead + "submitt: x\n", "submitt", 7, policy.CodeUnknownKey},
		{"policy", "version: 1\nmode: [\n", "", 2, policy.CodeSyntax},
		{"pack", "id: x\ncategory: [\n", "", 2, policy.CodeSyntax},
		{"login", loginHead + "submit: [\n", "", 7, policy.CodeSyntax},
		{"policy", "version: 1\n---\nversion: 1\n", "", 2, policy.CodeSyntax},
		{"pack", string(pack) + "---\nid: y\n", "", strings.Count(string(pack), "\n") + 1, policy.CodeSyntax},
		{"login", loginHead + "---\nurl: x\n", "", 7, policy.CodeSyntax},
		{"policy", "navigation:\n  allow: []\n  allow: []\n", "navigation.allow", 3, policy.CodeDuplicateKey},
		{"pack", strings.Replace(string(pack), "category: destructive\n", "category: destructive\ncategory: destructive\n", 1), "category", 4, policy.CodeDuplicateKey},
		{"login", loginHead + "username: altro\n", "username", 7, policy.CodeDuplicateKey},
		{"policy", "version: 1\nmode: [act]\n", "mode", 2, policy.CodeWrongType},
		{"pack", strings.Replace(string(pack), "category: destructive\n", "category: [destructive]\n", 1), "category", 3, policy.CodeWrongType},
		{"login", strings.Replace(loginHead, "user_field: Utente\n", "user_field: [Utente]\n", 1), "user_field", 2, policy.CodeWrongType},
	}
	format := regexp.MustCompile(`^([^:]+):(\d+)(?::(\d+))?: (?:([a-z_.\[\]0-9]+): )?(.+)$`)
	for _, c := range cases {
		t.Run(c.kind+" "+string(c.code), func(t *testing.T) {
			l := loaders[c.kind]
			sub := filepath.Join(dir, c.kind+strings.ReplaceAll(string(c.code), " ", "-")+c.field)
			if err := os.MkdirAll(sub, 0o755); err != nil {
				t.Fatal(err)
			}
			p := filepath.Join(sub, l.name)
			if err := os.WriteFile(p, []byte(c.body), 0o600); err != nil {
				t.Fatal(err)
			}
			if c.kind == "pack" {
				page, err := os.ReadFile(filepath.Join("testdata", "pack-good", "purge-button.html"))
				if err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(filepath.Join(sub, "purge-button.html"), page, 0o600); err != nil {
					t.Fatal(err)
				}
			}
			err := l.load(p)
			var all policy.Errors // the one type: PackErrors and credentials.Errors are it too
			if !errors.As(err, &all) {
				t.Fatalf("%s: err = %v (%T), want located errors", c.kind, err, err)
			}
			pe := all[0]
			for _, e := range all {
				if e.Code == c.code {
					pe = e
					break
				}
			}
			m := format.FindStringSubmatch(pe.Error())
			if m == nil || m[1] != p || pe.File != p || pe.Line != c.line || pe.Field != c.field || pe.Code != c.code {
				t.Fatalf("%s: got %q (file %s line %d field %q code %q), want %s:%d:COL: %s: ... code %q", c.kind, pe.Error(), pe.File, pe.Line, pe.Field, pe.Code, p, c.line, c.field, c.code)
			}
			if hasCol := m[3] != "" && pe.Column > 0; hasCol != (c.code != policy.CodeSyntax || strings.Contains(c.body, "---")) {
				t.Fatalf("%s: %q: a column (%d) is given for every problem but a syntax error the parser locates by line", c.kind, pe.Error(), pe.Column)
			}
			if !errors.Is(err, c.code) || (l.family != nil && !errors.Is(err, l.family)) {
				t.Fatalf("%s: %v does not match its code %q and family %v", c.kind, err, c.code, l.family)
			}
			if strings.Contains(err.Error(), "s3cret") {
				t.Fatalf("the error quotes the password: %v", err)
			}
		})
	}
}
