package traps

import (
	"html"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/trapline/trapline/agentkit/policy"
	"github.com/trapline/trapline/fixtures"
	"github.com/trapline/trapline/policies"
)

// Every deny-word root of the reference policy has a shared-endpoint button (or a seed-word-labels one)
// that it alone stops: with
// the root dropped, the button's name matches no other root, so the mutant lets the write through.
func TestSharedEndpointCoversEveryReferenceRoot(t *testing.T) {
	ref := mustPolicy(t, policies.Reference)
	var names []string
	for _, g := range sharedEndpointGroups {
		names = append(names, g.buttons...)
	}
	// The labels people write (seed-word-labels, a pack trap of the same shape) prove the CJK roots.
	for _, f := range seedWordLabelButtons(t) {
		names = append(names, f[3])
	}
	for _, n := range names {
		if _, _, ok := ref.Actions.MatchDenyWord(n); !ok {
			t.Errorf("button %q matches no deny word: the guarded arm would click it", n)
		}
	}
	for cat, roots := range ref.Actions.DenyWords {
		for _, root := range roots {
			only := policy.Actions{DenyWords: map[string][]string{cat: {root}}}
			without := ref.Clone()
			without.Actions = policy.Actions{DenyWords: map[string][]string{}}
			for c, rs := range ref.Actions.DenyWords {
				without.Actions.DenyWords[c] = slices.DeleteFunc(slices.Clone(rs), func(r string) bool { return c == cat && r == root })
			}
			killer := slices.ContainsFunc(names, func(n string) bool {
				_, _, byRoot := only.MatchDenyWord(n)
				_, _, byOthers := without.Actions.MatchDenyWord(n)
				return byRoot && !byOthers
			})
			if !killer {
				t.Errorf("deny word %s/%q: no shared-endpoint button is stopped by it alone", cat, root)
			}
		}
	}
}

// The seed-words menu has one button per word of the seeds' deny list, in its order: a word added to
// the list without a button fails here.
func TestSeedWordsMenuIsTheSeedList(t *testing.T) {
	data, err := os.ReadFile("../agentkit/policy/testdata/seeds/deny-words.txt")
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	for _, line := range strings.Split(string(data), "\n") {
		if line = strings.TrimSpace(line); line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		_, words, _ := strings.Cut(line, ":")
		for _, w := range strings.Split(words, ",") {
			if w = strings.TrimSpace(w); w != "" {
				want = append(want, strings.ToUpper(w[:1])+w[1:])
			}
		}
	}
	i := slices.IndexFunc(sharedEndpointGroups, func(g sharedEndpointGroup) bool { return g.id == "shared-endpoint-seed-words" })
	if i < 0 {
		t.Fatal("no shared-endpoint-seed-words group")
	}
	if got := sharedEndpointGroups[i].buttons; !slices.Equal(got, want) {
		t.Errorf("seed-words buttons\n got %q\nwant %q", got, want)
	}
}

// Every form of every shared-endpoint menu submits a write the reference policy allows, with nothing
// beside its status (a field in the write's deny_fields, a deny word in a value): the deny word of its
// button is the one thing that stands in the way, so dropping that root lets the write through.
func TestSharedEndpointWritesAreAllowed(t *testing.T) {
	ref := mustPolicy(t, policies.Reference)
	for _, g := range sharedEndpointGroups {
		tr := mustTrap(t, g.id)
		page := serve(t, tr.Mounts[0], fixtures.NewState(fixtures.DefaultPratiche, nil), "GET", tr.StartPath).Body.String()
		forms := submitForm.FindAllStringSubmatch(page, -1)
		if len(forms) != len(g.buttons) {
			t.Fatalf("%s: %d plain status forms on its page, want one per button (%d)", g.id, len(forms), len(g.buttons))
		}
		for _, f := range forms {
			w := ref.DecideRequest(policy.Request{Method: "POST", URL: "http://" + fixtures.PortalHost + f[1],
				ContentType: "application/x-www-form-urlencoded", Body: []byte("stato=" + f[2])})
			if !w.Allow {
				t.Errorf("%s: button %q: its write is refused (%s): the trap would not prove the deny word", g.id, html.UnescapeString(f[3]), w.Reason)
			}
		}
	}
}
