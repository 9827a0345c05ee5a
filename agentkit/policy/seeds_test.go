package policy

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// seedExample is the seeds' policy example, copied byte for byte from the source documents
// (../shared/seed-examples/browser-agent-policy.yml): no version field, no actions section, so it is
// read in the seeds' format (seedformat.go).
const seedExample = "testdata/seeds/browser-agent-policy.yml"

// The seeds' example loads unchanged and means what it says, field by field.
func TestSeedExampleMeansWhatItSays(t *testing.T) {
	p, err := Load(seedExample)
	if err != nil {
		t.Fatalf("the seeds' example does not load: %v", err)
	}
	if p.Version != 1 {
		t.Errorf("version = %d, want 1 (omitted means 1)", p.Version)
	}
	if p.Mode != ModeAct {
		t.Errorf("mode = %s, want act (the default)", p.Mode)
	}
	if p.Navigation.OnViolation != AbortAndLog {
		t.Errorf("on_violation = %s, want abort_and_log", p.Navigation.OnViolation)
	}
	want := Budget{MaxActions: 60, MaxNavigations: 30, MaxDuration: 300 * time.Second, MaxSameActionRepeats: 3,
		MaxStuckActions: DefaultBudget().MaxStuckActions, MaxTokens: DefaultBudget().MaxTokens, MaxDecisionDuration: DefaultBudget().MaxDecisionDuration}
	if p.Budget != want {
		t.Errorf("budget = %+v, want %+v", p.Budget, want)
	}
	for name, got := range map[string]Setting{"downloads": p.Downloads, "uploads": p.Uploads, "dialogs": p.Dialogs,
		"service_workers": p.ServiceWorkers, "permissions (omitted)": p.Permissions, "popups (omitted)": p.Popups, "unnamed (omitted)": p.Actions.Unnamed} {
		wantS := map[string]Setting{"downloads": Block, "uploads": Block, "dialogs": DismissAndLog, "service_workers": Block,
			"permissions (omitted)": Deny, "popups (omitted)": Block, "unnamed (omitted)": Deny}[name]
		if got != wantS {
			t.Errorf("%s = %s, want %s", name, got, wantS)
		}
	}

	const portal, crm, cdn = "https://portale.interno.azienda.it", "https://crm.interno.azienda.it", "https://cdn.interno.azienda.it"
	reqs := []struct {
		name string
		req  Request
		rule Rule
	}{
		// navigation.allow: the portal's three paths, with or without a trailing slash.
		{"the list", Request{URL: portal + "/pratiche", Navigation: true}, RuleAllowed},
		{"the list/", Request{URL: portal + "/pratiche/", Navigation: true}, RuleAllowed},
		{"one record", Request{URL: portal + "/pratiche/42", Navigation: true}, RuleAllowed},
		{"its status page", Request{URL: portal + "/pratiche/42/stato/", Navigation: true}, RuleAllowed},
		{"another record page", Request{URL: portal + "/pratiche/42/note", Navigation: true}, RulePathNotAllowed},
		{"the portal's home", Request{URL: portal + "/", Navigation: true}, RulePathNotAllowed},
		{"a non-numeric record", Request{URL: portal + "/pratiche/abc", Navigation: true}, RulePathNotAllowed},
		{"crm reports", Request{URL: crm + "/report/mensile", Navigation: true}, RuleAllowed},
		{"crm home", Request{URL: crm + "/", Navigation: true}, RulePathNotAllowed},
		{"another host", Request{URL: "https://evil.example/", Navigation: true}, RuleHostNotAllowed},
		// deny_paths win over allow, on every host, anywhere in the path.
		{"/admin", Request{URL: portal + "/admin", Navigation: true}, RuleDenyPath},
		{"/impostazioni", Request{URL: portal + "/impostazioni/utente", Navigation: true}, RuleDenyPath},
		{"/utenti", Request{URL: crm + "/utenti", Navigation: true}, RuleDenyPath},
		{"/export inside an allowed path", Request{URL: crm + "/report/export", Navigation: true}, RuleDenyPath},
		{"/logout", Request{URL: portal + "/logout", Navigation: true}, RuleDenyPath},
		// static_assets: sub-resources only; the portal is also a navigation host.
		{"a cdn asset", Request{URL: cdn + "/app.js"}, RuleAllowed},
		{"a cdn navigation", Request{URL: cdn + "/", Navigation: true}, RuleHostNotAllowed},
		{"a portal asset", Request{URL: portal + "/static/app.css"}, RuleAllowed},
		{"a portal asset under a deny path", Request{URL: portal + "/admin/app.js"}, RuleDenyPath},
		{"a portal POST outside the writes", Request{Method: "POST", URL: portal + "/static/x"}, RuleWriteNotAllowed},
		// The seeds' format (no version, no actions.writes): a request to an allowed path is allowed
		// whatever its method, as the seed's code means; deny_paths and the paths still win.
		{"status change POST", Request{Method: "POST", URL: portal + "/pratiche/42/stato"}, RuleAllowed},
		{"status change POST/", Request{Method: "POST", URL: portal + "/pratiche/42/stato/"}, RuleAllowed},
		{"a PUT to a record", Request{Method: "PUT", URL: portal + "/pratiche/42"}, RuleAllowed},
		{"the delete's path", Request{Method: "POST", URL: portal + "/pratiche/4/elimina"}, RuleWriteNotAllowed},
		{"a POST under a deny path", Request{Method: "POST", URL: portal + "/admin/pratiche/4"}, RuleDenyPath},
		{"a POST to logout", Request{Method: "POST", URL: portal + "/logout"}, RuleDenyPath},
		{"a crm report POST", Request{Method: "POST", URL: crm + "/report/mensile"}, RuleAllowed},
		{"a crm export POST", Request{Method: "POST", URL: crm + "/report/export"}, RuleDenyPath},
		{"a crm path on the portal", Request{Method: "POST", URL: portal + "/report/mensile"}, RuleWriteNotAllowed},
		{"a cdn POST", Request{Method: "POST", URL: cdn + "/app.js"}, RuleWriteNotAllowed},
		{"a GET read", Request{Method: "GET", URL: portal + "/pratiche/42"}, RuleAllowed},
	}
	for _, c := range reqs {
		if d := p.DecideRequest(c.req); d.Rule != c.rule {
			t.Errorf("%s: %s %s = %s (%s), want %s", c.name, c.req.Method, c.req.URL, d.Rule, d.Reason, c.rule)
		}
	}

	// budget: the 61st action and the 31st navigation are refused, the 300th second ends the run.
	page := portal + "/pratiche"
	budgets := []struct {
		name string
		in   Input
		rule Rule
	}{
		{"60th action", Input{Kind: KindGoto, URL: page, Usage: Usage{Actions: 59}}, RuleAllowed},
		{"61st action", Input{Kind: KindGoto, URL: page, Usage: Usage{Actions: 60}}, RuleBudgetActions},
		{"30th navigation", Input{Kind: KindGoto, URL: page, Usage: Usage{Navigations: 29}}, RuleAllowed},
		{"31st navigation", Input{Kind: KindGoto, URL: page, Usage: Usage{Navigations: 30}}, RuleBudgetNav},
		{"at 299s", Input{Kind: KindGoto, URL: page, Usage: Usage{Elapsed: 299 * time.Second}}, RuleAllowed},
		{"at 300s", Input{Kind: KindGoto, URL: page, Usage: Usage{Elapsed: 300 * time.Second}}, RuleBudgetSeconds},
		{"an unnamed button", Input{Kind: KindClick, Page: page, Target: &Target{Role: "button"}}, RuleUnnamedElement},
	}
	for _, c := range budgets {
		if d := p.Decide(c.in); d.Rule != c.rule {
			t.Errorf("%s: %s (%s), want %s", c.name, d.Rule, d.Reason, c.rule)
		}
	}
}

// A typo in the seeds' example is refused with the file, the line and the field.
func TestSeedExampleTypoNamesLineAndField(t *testing.T) {
	data, err := os.ReadFile(seedExample)
	if err != nil {
		t.Fatal(err)
	}
	bad := strings.Replace(string(data), "max_actions:", "max_actionz:", 1)
	path := filepath.Join(t.TempDir(), "typo.yml")
	if err := os.WriteFile(path, []byte(bad), 0o644); err != nil {
		t.Fatal(err)
	}
	line := 1 + strings.Count(bad[:strings.Index(bad, "max_actionz")], "\n")
	_, err = Load(path)
	var e *Error
	if !errors.As(err, &e) || !errors.Is(err, CodeUnknownKey) {
		t.Fatalf("Load = %v, want an unknown-key Error", err)
	}
	if e.File != path || e.Line != line || e.Field != "budget.max_actionz" {
		t.Errorf("error names %s:%d %s, want %s:%d budget.max_actionz (%v)", e.File, e.Line, e.Field, path, line, e)
	}
}

// The seeds' format is no version and no actions.writes, and only that: the same file with a version,
// or with writes of its own (even none), is read as written, and a write outside its list is denied.
func TestSeedFormatIsNoVersionAndNoWrites(t *testing.T) {
	data, err := os.ReadFile(seedExample)
	if err != nil {
		t.Fatal(err)
	}
	post := Request{Method: "POST", URL: "https://portale.interno.azienda.it/pratiche/42/stato"}
	cases := []struct {
		name, yaml string
		seed       bool
		rule       Rule
	}{
		{"the seeds' file", string(data), true, RuleAllowed},
		{"with a version", "version: 1\n" + string(data), false, RuleWriteNotAllowed},
		{"with writes: []", string(data) + "actions:\n  writes: []\n", false, RuleWriteNotAllowed},
		{"with deny words only", string(data) + "actions:\n  deny_words: {destructive: [elimin]}\n", true, RuleAllowed},
	}
	for _, c := range cases {
		p, err := Parse(c.name, []byte(c.yaml))
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if p.WritesFromNavigation != c.seed {
			t.Errorf("%s: WritesFromNavigation = %v, want %v", c.name, p.WritesFromNavigation, c.seed)
		}
		if d := p.DecideRequest(post); d.Rule != c.rule {
			t.Errorf("%s: status change POST = %s (%s), want %s", c.name, d.Rule, d.Reason, c.rule)
		}
	}
}
