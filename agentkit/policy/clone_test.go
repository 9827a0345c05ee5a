package policy

import "testing"

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
