package policy

import (
	"errors"
	"io/fs"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestLoadShippedPolicies(t *testing.T) {
	for _, name := range []string{"browser-agent-policy.yml", "annotated.yml", "reference.yml", "permissive.yml"} {
		t.Run(name, func(t *testing.T) {
			p := mustLoad(t, name)
			if p.Version != 1 || len(p.Navigation.Allow) == 0 {
				t.Fatalf("loaded policy looks empty: %+v", p)
			}
			if !strings.HasSuffix(p.Source, name) {
				t.Errorf("Source = %q, want it to name %s", p.Source, name)
			}
		})
	}
}

// The reference policy is the example policy grown by the catalog: every deny word of the example is
// stopped by the reference (written as it is, or covered by a broader root: "invia" covers "invia
// definitiv"), every deny path is in the reference, and the budgets are the same.
func TestReferenceExtendsExample(t *testing.T) {
	ex, ref := mustLoad(t, "annotated.yml"), mustLoad(t, "reference.yml")
	for cat, roots := range ex.Actions.DenyWords {
		for _, r := range roots {
			name := strings.ReplaceAll(r, "$", "")
			if _, _, ok := ref.Actions.MatchDenyWord(name); !ok {
				t.Errorf("reference does not stop %q, deny word %q (%s) of the example", name, r, cat)
			}
		}
	}
	for _, dp := range ex.Navigation.DenyPaths {
		if !slices.ContainsFunc(ref.Navigation.DenyPaths, func(p *Pattern) bool { return p.Source == dp.Source }) {
			t.Errorf("reference lacks deny path %q of the example", dp.Source)
		}
	}
	if !reflect.DeepEqual(ex.Budget, ref.Budget) {
		t.Errorf("budgets differ: %+v vs %+v", ex.Budget, ref.Budget)
	}
}

func TestReferenceValues(t *testing.T) {
	p := mustLoad(t, "reference.yml")
	want := Budget{50, 30, 120 * time.Second, 3, 6, 200000, 30 * time.Second}
	if p.Budget != want {
		t.Errorf("budget = %+v, want %+v", p.Budget, want)
	}
	if got := p.Navigation.StaticAssets; !reflect.DeepEqual(got, []string{"static.interno.test"}) {
		t.Errorf("static assets = %v", got)
	}
	if p.Mode != ModeAct || p.Navigation.OnViolation != AbortAndLog || p.Actions.Unnamed != Deny {
		t.Errorf("mode/on_violation/unnamed = %s/%s/%s", p.Mode, p.Navigation.OnViolation, p.Actions.Unnamed)
	}
	if got := p.Actions.DenyWords["irreversible_send"]; !reflect.DeepEqual(got, []string{"invia", "invio", "trasmett", "protocoll", "firma$", "firmar", "firmat", "firme$", "send", "submit final", "sign$", "pubblica", "pubblico$", "publish", "送信"}) {
		t.Errorf("irreversible_send = %q", got)
	}
}

func TestPermissiveValues(t *testing.T) {
	p := mustLoad(t, "permissive.yml")
	if p.Actions.Unnamed != Allow || len(p.Actions.DenyWords) != 0 || len(p.Navigation.DenyPaths) != 0 {
		t.Errorf("permissive policy is not permissive: %s", p.Summary())
	}
	if p.Navigation.OnViolation != BlockAndLog || p.Budget.MaxActions != 40 {
		t.Errorf("on_violation %s, max_actions %d", p.Navigation.OnViolation, p.Budget.MaxActions)
	}
	for _, s := range []Setting{p.Downloads, p.Uploads, p.Permissions, p.Popups, p.ServiceWorkers} {
		if s != Allow {
			t.Errorf("setting %s, want allow", s)
		}
	}
	if p.Dialogs != Accept {
		t.Errorf("dialogs %s, want accept", p.Dialogs)
	}
}

func TestDefaultsAreSafe(t *testing.T) {
	p := mustParse(t, minimal)
	want := &Policy{
		Source:         "test.yml",
		Version:        1,
		Mode:           ModeAct,
		Navigation:     Navigation{Allow: p.Navigation.Allow, OnViolation: AbortAndLog},
		Actions:        Actions{Unnamed: Deny},
		Budget:         DefaultBudget(),
		Downloads:      Block,
		Uploads:        Block,
		Dialogs:        DismissAndLog,
		Permissions:    Deny,
		Popups:         Block,
		ServiceWorkers: Block,
	}
	if !reflect.DeepEqual(p, want) {
		t.Errorf("defaults:\n got %+v\nwant %+v", p, want)
	}
	if DefaultBudget().MaxActions != 50 || DefaultBudget().MaxDuration != 120*time.Second {
		t.Errorf("DefaultBudget = %+v", DefaultBudget())
	}
}

func TestParseAcceptsVariants(t *testing.T) {
	cases := []struct {
		name  string
		yml   string
		check func(*Policy) bool
	}{
		{"host with port", "version: 1\nnavigation:\n  allow:\n    - {host: \"Portale.Interno.Test.:8080\", paths: [\"^/\"]}\n",
			func(p *Policy) bool {
				return p.Navigation.Allow[0].Host == "portale.interno.test" && p.Navigation.Allow[0].Port == "8080"
			}},
		{"IDN host", "version: 1\nnavigation:\n  allow:\n    - {host: \"bücher.test\", paths: [\"^/\"]}\n",
			func(p *Policy) bool { return p.Navigation.Allow[0].Host == "xn--bcher-kva.test" }},
		{"alias", "version: 1\nnavigation:\n  allow:\n    - {host: a.test, paths: &p [\"^/\"]}\n    - {host: b.test, paths: *p}\n",
			func(p *Policy) bool {
				return len(p.Navigation.Allow) == 2 && p.Navigation.Allow[1].Paths[0].Source == "^/"
			}},
		{"observe mode", minimal + "mode: observe\n", func(p *Policy) bool { return p.Mode == ModeObserve }},
		{"null lists are empty", minimal[:len(minimal)-len("    - host: portale.interno.test\n      paths: [\"^/\"]\n")] +
			"    - host: a.test\n      paths: [\"^/\"]\n  deny_paths:\nactions:\n  writes:\n",
			func(p *Policy) bool { return len(p.Navigation.DenyPaths) == 0 && len(p.Actions.Writes) == 0 }},
		{"write method upper-cased", minimal + "actions:\n  writes: [{method: post, path: \"^/x$\"}]\n",
			func(p *Policy) bool { return p.Actions.Writes[0].Method == "POST" }},
		{"roots normalised", minimal + "actions:\n  deny_words:\n    x: [\"ＥLIMIN\", \"Scarica  Tutt\", \"all'elenco\"]\n",
			func(p *Policy) bool {
				return reflect.DeepEqual(p.Actions.DenyWords["x"], []string{"elimin", "scarica tutt", "all elenco"})
			}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := mustParse(t, c.yml)
			if !c.check(p) {
				t.Errorf("unexpected policy: %+v", p)
			}
		})
	}
}

func TestParseErrors(t *testing.T) {
	type want struct {
		line  int
		field string
		code  Code
	}
	cases := []struct {
		name string
		yml  string
		want []want
	}{
		{"syntax", "version: 1\nnavigation: [\n", []want{{2, "", CodeSyntax}}},
		{"empty", "", []want{{0, "", CodeEmpty}}},
		{"two documents", minimal + "---\nversion: 1\n", []want{{6, "", CodeSyntax}}},
		{"not a mapping", "- 1\n", []want{{1, "", CodeWrongType}}},
		{"version 2", "version: 2\nnavigation:\n  allow: [{host: a.test, paths: [\"^/\"]}]\n", []want{{1, "version", CodeVersion}}},
		{"version string", "version: \"1\"\nnavigation:\n  allow: [{host: a.test, paths: [\"^/\"]}]\n", []want{{1, "version", CodeWrongType}}},
		{"unknown key", minimal + "colour: red\n", []want{{6, "colour", CodeUnknownKey}}},
		{"unknown nested key", minimal + "  deny_pathz: []\n", []want{{6, "navigation.deny_pathz", CodeUnknownKey}}},
		{"duplicate key", minimal + "version: 1\n", []want{{6, "version", CodeDuplicateKey}}},
		{"missing navigation", "version: 1\n", []want{{1, "navigation.allow", CodeMissing}}},
		{"missing allow", "version: 1\nnavigation:\n  deny_paths: []\n", []want{{3, "navigation.allow", CodeMissing}}},
		{"empty allow", "version: 1\nnavigation:\n  allow: []\n", []want{{3, "navigation.allow", CodeEmpty}}},
		{"allow not a list", "version: 1\nnavigation:\n  allow: portale.interno.test\n", []want{{3, "navigation.allow", CodeWrongType}}},
		{"empty paths", "version: 1\nnavigation:\n  allow:\n    - {host: a.test, paths: []}\n", []want{{4, "navigation.allow[0].paths", CodeEmpty}}},
		{"missing paths", "version: 1\nnavigation:\n  allow:\n    - {host: a.test}\n", []want{{4, "navigation.allow[0].paths", CodeMissing}}},
		{"invalid regex", "version: 1\nnavigation:\n  allow:\n    - host: a.test\n      paths:\n        - \"^/\"\n        - \"(\"\n", []want{{7, "navigation.allow[0].paths[1]", CodeInvalidRegex}}},
		{"invalid deny path", minimal + "  deny_paths: [\"[a\"]\n", []want{{6, "navigation.deny_paths[0]", CodeInvalidRegex}}},
		{"invalid host", "version: 1\nnavigation:\n  allow:\n    - {host: \"a b.test\", paths: [\"^/\"]}\n", []want{{4, "navigation.allow[0].host", CodeInvalidHost}}},
		{"wildcard host", "version: 1\nnavigation:\n  allow:\n    - {host: \"*.test\", paths: [\"^/\"]}\n", []want{{4, "navigation.allow[0].host", CodeInvalidHost}}},
		{"invalid static asset", minimal + "  static_assets: [\"x:99999\"]\n", []want{{6, "navigation.static_assets[0]", CodeInvalidHost}}},
		{"unknown on_violation", minimal + "  on_violation: shrug\n", []want{{6, "navigation.on_violation", CodeUnknownValue}}},
		{"unknown mode", minimal + "mode: yolo\n", []want{{6, "mode", CodeUnknownValue}}},
		{"unknown setting", minimal + "downloads: maybe\n", []want{{6, "downloads", CodeUnknownValue}}},
		{"setting of another field", minimal + "dialogs: block\n", []want{{6, "dialogs", CodeUnknownValue}}},
		{"setting wrong type", minimal + "popups: false\n", []want{{6, "popups", CodeWrongType}}},
		{"unknown unnamed", minimal + "actions:\n  unnamed: sometimes\n", []want{{7, "actions.unnamed", CodeUnknownValue}}},
		{"budget zero", minimal + "budget:\n  max_actions: 0\n", []want{{7, "budget.max_actions", CodeInvalidValue}}},
		{"budget negative", minimal + "budget: {max_seconds: -5}\n", []want{{6, "budget.max_seconds", CodeInvalidValue}}},
		{"budget string", minimal + "budget: {max_seconds: 2m}\n", []want{{6, "budget.max_seconds", CodeWrongType}}},
		{"repeats of one", minimal + "budget: {max_same_action_repeats: 1}\n", []want{{6, "budget.max_same_action_repeats", CodeInvalidValue}}},
		{"budget unknown key", minimal + "budget: {max_clicks: 3}\n", []want{{6, "budget.max_clicks", CodeUnknownKey}}},
		{"budget huge", minimal + "budget: {max_seconds: 99999999999999}\n", []want{{6, "budget.max_seconds", CodeInvalidValue}}},
		{"deny words not a map", minimal + "actions:\n  deny_words: [elimin]\n", []want{{7, "actions.deny_words", CodeWrongType}}},
		{"deny root empty", minimal + "actions:\n  deny_words:\n    x: [\"...\"]\n", []want{{8, "actions.deny_words.x[0]", CodeInvalidValue}}},
		{"deny root not a string", minimal + "actions:\n  deny_words:\n    x: [[a]]\n", []want{{8, "actions.deny_words.x[0]", CodeWrongType}}},
		{"exception missing page", minimal + "actions:\n  exceptions:\n    - {role: button, name: X}\n", []want{{8, "actions.exceptions[0].page", CodeMissing}}},
		{"exception bad regex", minimal + "actions:\n  exceptions:\n    - {role: button, name: X, page: \"*\"}\n", []want{{8, "actions.exceptions[0].page", CodeInvalidRegex}}},
		{"write bad method", minimal + "actions:\n  writes:\n    - {method: \"PO ST\", path: \"^/\"}\n", []want{{8, "actions.writes[0].method", CodeInvalidValue}}},
		{"write missing path", minimal + "actions:\n  writes:\n    - {method: POST}\n", []want{{8, "actions.writes[0].path", CodeMissing}}},
		{"several at once", "version: 3\nmode: x\nnavigation:\n  allow: []\nbudget: {max_actions: 0, max_tokens: -1}\n", []want{
			{1, "version", CodeVersion}, {2, "mode", CodeUnknownValue}, {4, "navigation.allow", CodeEmpty},
			{5, "budget.max_actions", CodeInvalidValue}, {5, "budget.max_tokens", CodeInvalidValue}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p, err := Parse("policies/x.yml", []byte(c.yml))
			if p != nil {
				t.Errorf("got a policy despite errors")
			}
			var errs Errors
			if !errors.As(err, &errs) {
				t.Fatalf("error %v (%T) is not Errors", err, err)
			}
			if len(errs) != len(c.want) {
				t.Fatalf("got %d errors, want %d:\n%v", len(errs), len(c.want), err)
			}
			for i, w := range c.want {
				e := errs[i]
				if e.Line != w.line || e.Field != w.field || e.Code != w.code || e.File != "policies/x.yml" {
					t.Errorf("error %d = {%s %d %q %q}, want {policies/x.yml %d %q %q}: %v",
						i, e.File, e.Line, e.Field, e.Code, w.line, w.field, w.code, e)
				}
				if !errors.Is(err, w.code) {
					t.Errorf("errors.Is(err, %q) = false", w.code)
				}
			}
		})
	}
}

func TestErrorFormat(t *testing.T) {
	yml := "version: 1\nnavigation:\n  allow:\n    - host: a.test\n      paths:\n        - \"^/\"\n        - \"(\"\n"
	_, err := Parse("policies/x.yml", []byte(yml))
	var e *Error
	if !errors.As(err, &e) {
		t.Fatalf("errors.As(*Error) failed on %v", err)
	}
	const want = `policies/x.yml:7:11: navigation.allow[0].paths[1]: invalid regex "(": missing closing )`
	if e.Error() != want || err.Error() != want {
		t.Errorf("got\n%s\nwant\n%s", err, want)
	}
}

func TestLoadMissingFile(t *testing.T) {
	p, err := Load("testdata/does-not-exist.yml")
	if p != nil || !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("Load = %v, %v; want nil and fs.ErrNotExist", p, err)
	}
	if !strings.HasPrefix(err.Error(), "load policy testdata/does-not-exist.yml: ") {
		t.Errorf("error not wrapped with context: %v", err)
	}
}
