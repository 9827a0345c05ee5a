package policy

import (
	"bufio"
	"os"
	"strings"
	"testing"
)

// seedDenyWords is the seeds' deny list, copied from the source documents
// (../shared/seed-examples/deny-words.txt): "category: word, word, ..." per line, IT and EN.
const seedDenyWords = "testdata/seeds/deny-words.txt"

// seedWord is one entry of the seeds' deny list.
type seedWord struct {
	category, word string
	line           int
}

// readSeedDenyWords parses the seeds' deny list.
func readSeedDenyWords(tb testing.TB) []seedWord {
	tb.Helper()
	f, err := os.Open(seedDenyWords)
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	var out []seedWord
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		cat, words, ok := strings.Cut(line, ":")
		if !ok {
			tb.Fatalf("%s:%d: no category", seedDenyWords, n)
		}
		for _, w := range strings.Split(words, ",") {
			if w = strings.TrimSpace(w); w != "" {
				out = append(out, seedWord{strings.TrimSpace(cat), w, n})
			}
		}
	}
	if err := sc.Err(); err != nil {
		tb.Fatal(err)
	}
	return out
}

// Every word of the seeds' deny list is stopped by the reference policy, as a button's whole name, in
// lower case, capitalised and upper case, and in the category the list gives it. Mutation testing can
// only remove roots that were written; this test finds the ones that never were.
func TestReferenceStopsEverySeedDenyWord(t *testing.T) {
	ref := mustLoad(t, "reference.yml")
	words := readSeedDenyWords(t)
	if len(words) < 50 {
		t.Fatalf("read only %d words from %s", len(words), seedDenyWords)
	}
	for _, w := range words {
		for _, name := range []string{w.word, strings.ToUpper(w.word[:1]) + w.word[1:], strings.ToUpper(w.word)} {
			cat, root, ok := ref.Actions.MatchDenyWord(name)
			switch {
			case !ok:
				t.Errorf("%s:%d: %q (%s) is not stopped by the reference policy", seedDenyWords, w.line, name, w.category)
			case cat != w.category:
				t.Errorf("%s:%d: %q is stopped as %s (root %q), the seeds list it as %s", seedDenyWords, w.line, name, cat, root, w.category)
			}
			d := ref.Decide(Input{Kind: KindClick, Page: "http://portale.interno.test/pratiche/1", Target: &Target{Role: "button", Name: name}})
			if d.Allow || d.Rule != RuleDenyWord {
				t.Errorf("click on button %q = %s, want %s", name, d.Rule, RuleDenyWord)
			}
		}
	}
}
