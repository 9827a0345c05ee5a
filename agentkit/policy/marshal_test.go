package policy

import (
	"fmt"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

// TestMarshalRoundTrip: every policy file of the repository, marshalled and parsed again, is the
// same policy; and so is a clone changed the way traps' Arrange hooks change it.
func TestMarshalRoundTrip(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("..", "..", "policies", "*.yml"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no policy files found: %v", err)
	}
	for _, f := range files {
		p, err := Load(f)
		if err != nil {
			t.Fatalf("load %s: %v", f, err)
		}
		roundTrip(t, f, p)
		c := p.Clone()
		c.Navigation.OnViolation = BlockAndLog
		c.Popups, c.ServiceWorkers = Allow, Allow
		c.Navigation.Allow = append(c.Navigation.Allow, HostRule{Host: "extra.test", Port: "8080", Paths: []*Pattern{MustPattern("^/x$")}})
		c.Actions.Writes = append(c.Actions.Writes, Write{Method: "*", Path: MustPattern(`^/a\.b$`)})
		roundTrip(t, f+" (changed clone)", c)
	}
}

// marshalParse marshals p and parses the result again as name; either failing fails the test.
func marshalParse(t *testing.T, name string, p *Policy) (*Policy, []byte) {
	t.Helper()
	b, err := Marshal(p)
	if err != nil {
		t.Fatalf("%s: marshal: %v", name, err)
	}
	q, err := Parse(name, b)
	if err != nil {
		t.Fatalf("%s: parse the marshalled policy: %v\n%s", name, err, b)
	}
	return q, b
}

func roundTrip(t *testing.T, name string, p *Policy) {
	t.Helper()
	q, b := marshalParse(t, name, p)
	if !samePolicy(p, q) {
		t.Fatalf("%s: round trip changed the policy\nbefore %+v\nafter  %+v\n%s", name, *p, *q, b)
	}
	// The behaviour, not only the fields: the same decisions on a few requests.
	for _, u := range []string{"http://portale.interno.test/pratiche/4", "http://portale.interno.test/admin",
		"http://evil.example.test/", "http://extra.test:8080/x", "http://static.interno.test/static/app.css"} {
		r := Request{Method: "GET", URL: u}
		if a, b := p.DecideRequest(r), q.DecideRequest(r); a.Allow != b.Allow || a.Rule != b.Rule {
			t.Errorf("%s: %s decided %v/%s before, %v/%s after", name, u, a.Allow, a.Rule, b.Allow, b.Rule)
		}
	}
}

// samePolicy compares every field but Source and the compiled forms; patterns compare by source.
func samePolicy(a, b *Policy) bool {
	return reflect.DeepEqual(comparable(a), comparable(b))
}

func comparable(p *Policy) map[string]any {
	c := p.Clone()
	out := map[string]any{}
	var hosts, deny, exc, writes []string
	for _, h := range c.Navigation.Allow {
		hosts = append(hosts, h.Host+" "+h.Port+" "+fmt.Sprint(h.Paths))
	}
	for _, x := range c.Navigation.DenyPaths {
		deny = append(deny, x.Source)
	}
	for _, e := range c.Actions.Exceptions {
		exc = append(exc, e.Role+" "+e.Name+" "+e.Page.Source)
	}
	for _, w := range c.Actions.Writes {
		writes = append(writes, w.Method+" "+w.Path.Source)
	}
	out["allow"], out["deny"], out["exceptions"], out["writes"] = hosts, deny, exc, writes
	var dialogs []string
	for _, r := range c.DialogRules {
		after := ""
		if r.After != nil {
			after = r.After.Role + " " + r.After.Name.String()
		}
		dialogs = append(dialogs, r.Text.Source+" "+after+" "+string(r.Then))
	}
	out["dialog_rules"], c.DialogRules = dialogs, nil
	if len(c.Actions.DenyWords) > 0 {
		out["deny_words"] = c.Actions.DenyWords
	}
	// How the writes were read (the seeds' format) is no part of what the policy does: Marshal
	// writes them out, with the version, so the copy reads them as written.
	c.Source, c.Actions.roots, c.Actions.DenyWords, c.WritesFromNavigation = "", nil, nil, false
	c.Navigation.Allow, c.Navigation.DenyPaths, c.Actions.Exceptions, c.Actions.Writes = nil, nil, nil, nil
	if len(c.Navigation.StaticAssets) == 0 {
		c.Navigation.StaticAssets = nil
	}
	out["rest"] = *c
	return out
}

func TestMarshalRejectsWhatTheSyntaxCannotSay(t *testing.T) {
	p, err := Load(filepath.Join("..", "..", "policies", "reference.yml"))
	if err != nil {
		t.Fatal(err)
	}
	c := p.Clone()
	c.Budget.MaxDuration = 1500 * time.Millisecond
	if _, err := Marshal(c); err == nil || !strings.Contains(err.Error(), "budget.max_seconds") {
		t.Fatalf("a fractional budget: got %v, want an error naming budget.max_seconds", err)
	}
	c = p.Clone()
	c.Navigation.DenyPaths = append(c.Navigation.DenyPaths, nil)
	if _, err := Marshal(c); err == nil || !strings.Contains(err.Error(), "navigation.deny_paths") {
		t.Fatalf("a nil pattern: got %v, want an error naming navigation.deny_paths", err)
	}
	if _, err := Marshal(nil); err == nil {
		t.Fatal("nil policy: want an error")
	}
}
