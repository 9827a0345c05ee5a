package policy_test

import (
	"errors"
	"testing"

	"github.com/trapline/trapline/agentkit/policy"
)

// TestPatchMergesMappingsAndReplacesTheRest: a fragment merges key by key into mappings, replaces
// lists and values, leaves the base policy alone, and a fragment that makes the policy invalid is
// Parse's located error, naming the patched policy.
func TestPatchMergesMappingsAndReplacesTheRest(t *testing.T) {
	base, err := policy.Parse("base.yml", []byte("version: 1\nnavigation:\n  allow:\n    - host: portale.interno.test\n      paths: [\"/\"]\nbudget:\n  max_actions: 9\n  max_tokens: 100\n"))
	if err != nil {
		t.Fatal(err)
	}
	got, err := policy.Patch(base, []byte("budget:\n  max_actions: 3\ndownloads: allow\n"), "base.yml + patch")
	if err != nil {
		t.Fatal(err)
	}
	if got.Budget.MaxActions != 3 || got.Budget.MaxTokens != 100 || got.Downloads != policy.Allow || got.Source != "base.yml + patch" {
		t.Fatalf("patched: actions %d tokens %d downloads %s source %s", got.Budget.MaxActions, got.Budget.MaxTokens, got.Downloads, got.Source)
	}
	if base.Budget.MaxActions != 9 || base.Downloads == policy.Allow {
		t.Fatal("the base policy changed")
	}
	_, err = policy.Patch(base, []byte("budget:\n  max_actions: 0\n"), "base.yml + bad")
	var pe *policy.Error
	if !errors.As(err, &pe) || pe.File != "base.yml + bad" || pe.Field != "budget.max_actions" {
		t.Fatalf("an invalid patch: %v, want a located error at budget.max_actions", err)
	}
	if _, err := policy.Patch(base, []byte("- a list\n"), "x"); err == nil {
		t.Fatal("a fragment that is not a mapping was applied")
	}
}

// A patch's list adds to the policy's list (a pack adds its app's host to the user's hosts); tagged
// !replace it replaces the list, at any depth.
func TestPatchListsAddUnlessTaggedReplace(t *testing.T) {
	base, err := policy.Parse("base.yml", []byte("version: 1\nnavigation:\n  allow:\n    - host: portale.interno.test\n      paths: [\"^/\"]\n"))
	if err != nil {
		t.Fatal(err)
	}
	hosts := func(p *policy.Policy) []string {
		var out []string
		for _, a := range p.Navigation.Allow {
			out = append(out, a.Host)
		}
		return out
	}
	added, err := policy.Patch(base, []byte("navigation:\n  allow:\n    - {host: app.example.test, paths: [\"^/\"]}\n"), "add")
	if err != nil {
		t.Fatal(err)
	}
	if got := hosts(added); len(got) != 2 || got[0] != "portale.interno.test" || got[1] != "app.example.test" {
		t.Fatalf("added: hosts %v, want the user's host and the app's", got)
	}
	replaced, err := policy.Patch(base, []byte("navigation:\n  allow: !replace\n    - {host: app.example.test, paths: [\"^/\"]}\n"), "replace")
	if err != nil {
		t.Fatal(err)
	}
	if got := hosts(replaced); len(got) != 1 || got[0] != "app.example.test" {
		t.Fatalf("replaced: hosts %v, want the app's alone", got)
	}
	if got := hosts(base); len(got) != 1 {
		t.Fatalf("the base policy changed: %v", got)
	}
}
