package policy

import (
	"strings"
	"testing"
)

// A policy that loads but can do nothing says so: no writes in act mode, no deny words. The seeds'
// own file has writes (read from navigation.allow) and no deny words; the reference has both.
func TestWarningsWhereAPolicyCanDoNothing(t *testing.T) {
	cases := []struct {
		name string
		p    *Policy
		want []string // a word each warning must hold, in order
	}{
		{"reference", mustLoad(t, "reference.yml"), nil},
		{"the seeds' file", mustLoad(t, "browser-agent-policy.yml"), []string{"no deny words"}},
		{"a version and nothing else", mustParse(t, "version: 1\nnavigation: {allow: [{host: a.test, paths: ['^/']}]}\n"), []string{"no writes", "no deny words"}},
		{"observe mode", mustParse(t, "version: 1\nmode: observe\nnavigation: {allow: [{host: a.test, paths: ['^/']}]}\nactions: {deny_words: {x: [elimin]}}\n"), nil},
	}
	for _, c := range cases {
		got := c.p.Warnings()
		if len(got) != len(c.want) {
			t.Errorf("%s: warnings %q, want %d", c.name, got, len(c.want))
			continue
		}
		for i, w := range c.want {
			if !strings.HasPrefix(got[i], w) {
				t.Errorf("%s: warning %d = %q, want it to start %q", c.name, i, got[i], w)
			}
		}
	}
}
