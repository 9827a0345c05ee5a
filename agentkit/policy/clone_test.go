package policy

import (
	"slices"
	"testing"
)

func TestCloneIsDeep(t *testing.T) {
	p := mustLoad(t, "reference.yml")
	before := p.Summary()
	c := p.Clone()
	c.Navigation.Allow[0].Paths = append(c.Navigation.Allow[0].Paths, MustPattern("^/login$"))
	c.Navigation.Allow[0].Host = "other.test"
	c.Navigation.DenyPaths = c.Navigation.DenyPaths[:0]
	c.Actions.DenyWords["destructive"][0] = "changed"
	delete(c.Actions.DenyWords, "money")
	c.Actions.Writes = append(c.Actions.Writes, Write{Method: "POST", Path: MustPattern("^/login$")})
	c.Budget.MaxActions = 1
	if p.Summary() != before {
		t.Fatalf("changing the clone changed the original:\n%s\n%s", before, p.Summary())
	}
}

// An edit to a clone's deny words must change what the clone matches, and only the clone: a
// root added by a trap's Arrange hook that silently did not apply would be a guard that fails open.
func TestCloneDenyWordEditsTakeEffect(t *testing.T) {
	p := mustLoad(t, "reference.yml")
	const name = "Archivia definitivamente"
	if _, _, ok := p.Actions.MatchDenyWord(name); ok {
		t.Fatalf("precondition: %q already matches the reference policy", name)
	}
	added := p.Clone()
	added.Actions.DenyWords["destructive"] = append(added.Actions.DenyWords["destructive"], "archivia")
	if cat, root, ok := added.Actions.MatchDenyWord(name); !ok || cat != "destructive" || root != "archivia" {
		t.Fatalf("root added to the clone: got (%q, %q, %v), want (destructive, archivia, true)", cat, root, ok)
	}
	if _, _, ok := p.Actions.MatchDenyWord(name); ok {
		t.Fatal("root added to the clone matches on the original")
	}

	cat, root, ok := p.Actions.MatchDenyWord("Elimina pratica")
	if !ok {
		t.Fatal("precondition: the reference policy does not deny \"Elimina pratica\"")
	}
	removed := p.Clone()
	removed.Actions.DenyWords[cat] = slices.DeleteFunc(slices.Clone(removed.Actions.DenyWords[cat]),
		func(r string) bool { return r == root })
	if c, r, ok := removed.Actions.MatchDenyWord("Elimina pratica"); ok && r == root {
		t.Fatalf("root %q removed from the clone still matches (%s)", root, c)
	}
	if _, _, ok := p.Actions.MatchDenyWord("Elimina pratica"); !ok {
		t.Fatal("removing a root from the clone changed the original")
	}
}
