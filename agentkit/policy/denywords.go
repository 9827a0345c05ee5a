package policy

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"unicode"
)

// denyRoot is one compiled deny-word root.
type denyRoot struct {
	category string
	root     string // canonical form, as stored in Actions.DenyWords
	words    []rootWord
}

// rootWord is one word of a root: a token prefix, or a whole token when exact.
type rootWord struct {
	text  string
	exact bool
	cjk   bool // Han, Kana or Hangul alone: matches inside a word of the name (isCJKWord)
}

// compileRoot normalises a root as written in a policy. Each whitespace-separated word is passed
// through NormalizeText (which may split it further, as "all'elenco" becomes "all elenco"); a word
// ending in "$" must match a whole token. For compatibility with substring-style lists, a root
// ending in whitespace ("firma ") makes its last word whole, exactly as "firma$" does.
func compileRoot(raw string) (canonical string, words []rootWord, err error) {
	trailingSpace := strings.TrimRightFunc(raw, unicode.IsSpace) != raw
	for _, field := range strings.Fields(raw) {
		body, exact := strings.CutSuffix(field, "$")
		toks := strings.Fields(NormalizeText(body))
		for i, t := range toks {
			words = append(words, rootWord{text: t, exact: exact && i == len(toks)-1, cjk: isCJKWord(t)})
		}
	}
	if len(words) == 0 {
		return "", nil, fmt.Errorf("root %q has no letters or digits", raw)
	}
	if trailingSpace {
		words[len(words)-1].exact = true
	}
	parts := make([]string, len(words))
	for i, w := range words {
		parts[i] = w.text
		if w.exact {
			parts[i] += "$"
		}
	}
	return strings.Join(parts, " "), words, nil
}

// compileDenyWords compiles every root, categories in name order and roots in their given order.
func compileDenyWords(m map[string][]string) []denyRoot {
	cats := slices.Sorted(maps.Keys(m))
	var out []denyRoot
	for _, c := range cats {
		for _, raw := range m[c] {
			canon, words, err := compileRoot(raw)
			if err != nil {
				continue // Parse rejects such roots; a hand-built one cannot match anything
			}
			out = append(out, denyRoot{category: c, root: canon, words: words})
		}
	}
	return out
}

// compile caches the compiled DenyWords, with a copy of the list they came from.
func (a *Actions) compile() {
	a.roots, a.rootsFrom = nil, nil
	if len(a.DenyWords) == 0 {
		return // nothing to cache
	}
	a.roots = compileDenyWords(a.DenyWords)
	a.rootsFrom = make(map[string][]string, len(a.DenyWords))
	for c, roots := range a.DenyWords {
		a.rootsFrom[c] = slices.Clone(roots)
	}
}

// sameDenyWords reports whether two deny-word lists hold the same roots in the same order. It
// costs a string comparison per root, far less than compiling them again.
func sameDenyWords(a, b map[string][]string) bool {
	return maps.EqualFunc(a, b, func(x, y []string) bool { return slices.Equal(x, y) })
}

// MatchDenyWord reports the first deny-word root found in an accessible name, checking categories
// in name order and roots in their order. The name is normalised with NormalizeText and split into
// tokens; a root word matches a token that starts with it (or equals it, for a word ending in "$"),
// a root word in Han, Kana or Hangul matches anywhere inside a token ("删除" in "确认删除"), and a
// multi-word root matches that many tokens in a row, with at most maxFunctionWords articles,
// prepositions or possessives between two of its words ("conferma ordin" in "Conferma l'ordine").
// root is returned in canonical form.
//
// The name is read three times: by NormalizeText, by CompactText (dashes and letter-spaced runs
// joined: "Eli-mina", "D e l e t e"), then by NormalizeText again with the fragments of a word split
// by a space or a dot joined where they make a root word (joinFragments: "Eli mina", "Eli.mina").
// A root found in any reading matches; the earlier readings are tried first, for every root.
func (a Actions) MatchDenyWord(name string) (category, root string, ok bool) {
	return a.matchText(name, NormalizeText(name))
}

// matchText is MatchDenyWord on raw text whose NormalizeText is norm: norm first, then, when it reads
// differently, CompactText(raw), then norm with split fragments joined.
func (a Actions) matchText(raw, norm string) (category, root string, ok bool) {
	if category, root, ok = a.matchNormalized(norm, false); ok {
		return category, root, ok
	}
	if compact := CompactText(raw); compact != norm {
		if category, root, ok = a.matchNormalized(compact, false); ok {
			return category, root, ok
		}
	}
	return a.matchNormalized(norm, true)
}

// matchNormalized is MatchDenyWord on an already normalised name, one reading: with join, the
// fragments of a split word are joined (joinFragments).
func (a Actions) matchNormalized(norm string, join bool) (category, root string, ok bool) {
	if norm == "" {
		return "", "", false
	}
	roots := a.roots
	if roots == nil || !sameDenyWords(a.DenyWords, a.rootsFrom) {
		roots = compileDenyWords(a.DenyWords)
	}
	tokens := strings.Split(norm, " ")
	for _, r := range roots {
		if matchRoot(tokens, r.words, join) {
			return r.category, r.root, true
		}
	}
	return "", "", false
}
