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

// seedWordForms is our table of the forms the source documents use for each seed deny word
// ("seed word: form, form"), beside the seeds' own list.
const seedWordForms = "testdata/seeds/word-forms.txt"

// readSeedWordForms parses seedWordForms: seed word -> its forms, and the line of each seed word.
func readSeedWordForms(tb testing.TB) (forms map[string][]string, lines map[string]int) {
	tb.Helper()
	data, err := os.ReadFile(seedWordForms)
	if err != nil {
		tb.Fatal(err)
	}
	forms, lines = map[string][]string{}, map[string]int{}
	for n, line := range strings.Split(string(data), "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		word, list, ok := strings.Cut(line, ":")
		if !ok {
			tb.Fatalf("%s:%d: no seed word before ':'", seedWordForms, n+1)
		}
		word = strings.TrimSpace(word)
		if _, dup := lines[word]; dup {
			tb.Fatalf("%s:%d: %q listed twice", seedWordForms, n+1, word)
		}
		lines[word] = n + 1
		forms[word] = []string{}
		for _, f := range strings.Split(list, ",") {
			if f = strings.TrimSpace(f); f != "" {
				forms[word] = append(forms[word], f)
			}
		}
	}
	return forms, lines
}

// Every word of the seeds' deny list has its line of forms, and every form (capitalised, upper case,
// and as the first word of a longer name) is stopped by the reference policy in the seed word's
// category: a seed word added to deny-words.txt without its forms fails here, and so does a form
// the roots miss ("Rinnovo" when the root was "rinnova", "Firmato" when it was "firma$").
func TestReferenceStopsEverySeedWordForm(t *testing.T) {
	ref := mustLoad(t, "reference.yml")
	forms, lines := readSeedWordForms(t)
	seen := map[string]bool{}
	for _, w := range readSeedDenyWords(t) {
		seen[w.word] = true
		fs, ok := forms[w.word]
		if !ok {
			t.Errorf("%s:%d: seed word %q has no line in %s: list the forms the documents use", seedDenyWords, w.line, w.word, seedWordForms)
			continue
		}
		for _, f := range fs {
			for _, name := range []string{strings.ToUpper(f[:1]) + f[1:], strings.ToUpper(f), strings.ToUpper(f[:1]) + f[1:] + " pratica 12"} {
				cat, root, ok := ref.Actions.MatchDenyWord(name)
				switch {
				case !ok:
					t.Errorf("%s:%d: %q (a form of %q, %s) is not stopped by the reference policy", seedWordForms, lines[w.word], name, w.word, w.category)
				case cat != w.category:
					t.Errorf("%s:%d: %q is stopped as %s (root %q), its seed word %q is %s", seedWordForms, lines[w.word], name, cat, root, w.word, w.category)
				}
			}
		}
	}
	for word, line := range lines {
		if !seen[word] {
			t.Errorf("%s:%d: %q is no word of %s", seedWordForms, line, word, seedDenyWords)
		}
	}
}
