package policy

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// functionWords are the short words a label puts between the words of a multi-word deny root:
// articles, prepositions (simple and articulated), possessives and demonstratives, Italian and
// English, in NormalizeText's form ("l'" and "dell'" are "l" and "dell"). The root "conferma ordin"
// matches "Conferma l'ordine", "Conferma il tuo ordine" and "Confirm your order"; "chiudi account"
// matches "Chiudi l'account" and "Chiudi il mio account". A word of the root itself is never skipped
// ("download all" still needs its "all"), and at most maxFunctionWords are skipped between two root
// words, so "Chiudi il pannello dell'account" stays a different label. A security boundary: read it
// as a table. Conjunctions ("e", "and") are absent on purpose: "Conferma e torna all'ordine" is two
// actions, not "conferma ordine". Read-only.
var functionWords = setOf(
	// Italian articles.
	"il", "lo", "la", "i", "gli", "le", "l", "un", "uno", "una",
	// Italian prepositions, simple and articulated (with their elided forms).
	"di", "d", "a", "ad", "da", "in", "con", "su", "per", "tra", "fra",
	"del", "dello", "della", "dei", "degli", "delle", "dell",
	"al", "allo", "alla", "ai", "agli", "alle", "all",
	"dal", "dallo", "dalla", "dai", "dagli", "dalle", "dall",
	"nel", "nello", "nella", "nei", "negli", "nelle", "nell",
	"sul", "sullo", "sulla", "sui", "sugli", "sulle", "sull",
	"col", "coi",
	// Italian possessives and demonstratives.
	"mio", "mia", "miei", "mie", "tuo", "tua", "tuoi", "tue", "suo", "sua", "suoi", "sue",
	"nostro", "nostra", "nostri", "nostre", "vostro", "vostra", "vostri", "vostre", "loro",
	"questo", "questa", "questi", "queste", "quest", "quel", "quello", "quella", "quei", "quegli", "quelle", "quell",
	// English articles, prepositions, possessives and demonstratives.
	"the", "an", "of", "to", "for", "from", "on", "at", "with", "by",
	"your", "my", "our", "their", "his", "her", "its", "this", "that", "these", "those",
)

// maxFunctionWords is how many function words may stand between two words of a deny root.
const maxFunctionWords = 3

// maxSplitTail is how many letters a word joined from fragments may have after its root word:
// "Eli minare" (elimin + "are") is one word, "Era sempre" (erase + "mpre") is two.
const maxSplitTail = 3

// maxSplitFragments is how many adjacent fragments may be joined into one root word.
const maxSplitFragments = 3

func setOf(words ...string) map[string]bool {
	m := make(map[string]bool, len(words))
	for _, w := range words {
		m[w] = true
	}
	return m
}

// isCJKWord reports whether a normalised root word is written in Han, Hiragana, Katakana or Hangul
// (with the prolonged sound mark) alone. Such scripts put no space between words, so a CJK root word
// matches anywhere inside a word of the name: "删除" in "确认删除", "削除" in "削除する".
func isCJKWord(w string) bool {
	if w == "" {
		return false
	}
	for _, r := range w {
		if !isCJKRune(r) {
			return false
		}
	}
	return true
}

func isCJKRune(r rune) bool {
	return r == 0x30FC || unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Hangul)
}

// matchWord reports how many tokens of the name, from its first, root word w matches (0: none).
// A CJK word matches inside the token; any other word matches the token's start (or the whole token
// when exact). With join, fragments of a split word are joined as joinFragments allows.
func matchWord(tokens []string, w rootWord, join bool) int {
	if len(tokens) == 0 {
		return 0
	}
	t := tokens[0]
	switch {
	case w.exact && t == w.text,
		!w.exact && w.cjk && strings.Contains(t, w.text),
		!w.exact && !w.cjk && strings.HasPrefix(t, w.text):
		return 1
	case join && !w.cjk:
		return joinFragments(tokens, w)
	}
	return 0
}

// joinFragments matches a root word split by a space, a dot or another separator ("Eli mina",
// "Eli.mina", "Can cella"): the first fragment is a proper start of the word, the following ones
// (at most maxSplitFragments in all) continue it, and the last one ends it with at most maxSplitTail
// letters more (exactly, for an exact word). No fragment may be a function word, so "In via di
// definizione" does not read as "invia", and a longer tail keeps two words two ("Era sempre" is not
// "erase"). It returns the number of fragments joined, 0 when they do not make the word.
func joinFragments(tokens []string, w rootWord) int {
	joined := ""
	for k := 0; k < len(tokens) && k < maxSplitFragments; k++ {
		if functionWords[tokens[k]] || isCJKWord(tokens[k]) {
			return 0
		}
		joined += tokens[k]
		if len(joined) < len(w.text) {
			if !strings.HasPrefix(w.text, joined) {
				return 0
			}
			continue
		}
		complete := joined == w.text || !w.exact && strings.HasPrefix(joined, w.text) &&
			utf8.RuneCountInString(joined[len(w.text):]) <= maxSplitTail
		if k == 0 || !complete { // k == 0: the whole word in one token, matchWord's case, not a split
			return 0
		}
		return k + 1
	}
	return 0
}

// matchRoot reports whether the root's words match the name's tokens from some token on.
func matchRoot(tokens []string, words []rootWord, join bool) bool {
	for i := range tokens {
		if matchWordsAt(tokens[i:], words, join) {
			return true
		}
	}
	return false
}

// matchWordsAt reports whether the root's words match tokens from the first: each word where the
// previous one ended, or after at most maxFunctionWords function words.
func matchWordsAt(tokens []string, words []rootWord, join bool) bool {
	i := 0
	for j, w := range words {
		n := matchWord(tokens[i:], w, join)
		for skipped := 0; n == 0 && j > 0 && skipped < maxFunctionWords && i < len(tokens) && functionWords[tokens[i]]; skipped++ {
			i++
			n = matchWord(tokens[i:], w, join)
		}
		if n == 0 {
			return false
		}
		i += n
	}
	return true
}
