package policy

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// NormalizeText reduces an accessible name (or a deny-word root) to the form deny words are matched
// on: compatibility-decomposed (NFKD, so fullwidth and styled letters become plain ones), without
// format characters (zero-width spaces and joiners, word joiner, BOM, soft hyphen and other Cf) or
// fillers, with Cyrillic and Greek look-alikes folded to the Latin letters they imitate, without
// accents, lower case, and with every run of spaces, punctuation and symbols collapsed to one space.
//
// "Ｅlimina", "Eli\u200bmina", "Еlimina" (Cyrillic Е) and "ELIMINA" all become "elimina".
// NormalizeText is idempotent.
func NormalizeText(s string) string {
	out := normalizeTextOnce(s)
	// One pass is a fixed point for ASCII results (the common case). Lower-casing can, in principle,
	// yield a rune that decomposes further, so non-ASCII results are re-run until stable.
	for range 3 {
		if isASCII(out) {
			return out
		}
		next := normalizeTextOnce(out)
		if next == out {
			return out
		}
		out = next
	}
	return out
}

func normalizeTextOnce(s string) string { return normalizeWith(s, false) }

// normalizeWith is one pass of NormalizeText; with joinDashes, the dashes, connectors and middle dots
// of isJoiner join their neighbours (as format characters do) instead of separating them.
func normalizeWith(s string, joinDashes bool) string {
	if !utf8.ValidString(s) {
		s = strings.ToValidUTF8(s, " ")
	}
	s = norm.NFKD.String(s)
	var b strings.Builder
	b.Grow(len(s))
	space := false // a separator is pending
	for _, r := range s {
		switch {
		case unicode.Is(unicode.Cf, r), unicode.Is(unicode.Mn, r), isFiller(r):
			continue // invisible: joins its neighbours
		case joinDashes && isJoiner(r):
			continue
		}
		r = foldHomoglyph(r)
		r = foldHomoglyph(unicode.ToLower(r))
		if !unicode.IsLetter(r) && !unicode.IsNumber(r) && !unicode.Is(unicode.Mc, r) && !unicode.Is(unicode.Me, r) {
			space = b.Len() > 0
			continue
		}
		if space {
			b.WriteByte(' ')
			space = false
		}
		b.WriteRune(r)
	}
	return b.String()
}

// CompactText is the second reading of a name that deny words are matched on, for spellings that
// split a word: NormalizeText with every dash, connector and middle dot joining its neighbours
// ("Eli-mina", "Eli–mina", "Eli_mina", "Eli·mina" become "elimina") and every run of two or more
// one-letter words joined into one ("D e l e t e", "E.L.I.M.I.N.A" and "P a g a" become "delete",
// "elimina", "paga"). A name matches a deny word when either reading does: the second only adds
// refusals ("Sign-out" is still "sign out" in the first), and a name without such spellings reads the
// same both ways ("Salva" stays "salva"). A word split by a space alone ("Eli mina") is not joined
// here, where every word would be ("In via di definizione" must not read as "invia"): the matcher
// joins such fragments only where they make a root word (joinFragments).
func CompactText(s string) string {
	// One pass that joins at dashes, then NormalizeText's fixed point on the result.
	words := strings.Split(NormalizeText(normalizeWith(s, true)), " ")
	out := make([]string, 0, len(words))
	for i := 0; i < len(words); {
		j := i
		for j < len(words) && isOneLetter(words[j]) {
			j++
		}
		if j-i >= 2 {
			out = append(out, strings.Join(words[i:j], ""))
			i = j
			continue
		}
		out = append(out, words[i])
		i++
	}
	return strings.Join(out, " ")
}

// isJoiner reports the runes that split a word without ending it: dashes (Pd, the minus sign, the
// hyphen bullet), connectors (Pc: "_") and middle dots (·, ‧, ・, ･).
func isJoiner(r rune) bool {
	switch r {
	case 0x2212, 0x2043, 0x00B7, 0x2027, 0x30FB, 0xFF65, 0x2219, 0x22C5:
		return true
	}
	return unicode.Is(unicode.Pd, r) || unicode.Is(unicode.Pc, r)
}

// isOneLetter reports whether a normalised word is a single letter (not a digit).
func isOneLetter(w string) bool {
	r, size := utf8.DecodeRuneInString(w)
	return size > 0 && size == len(w) && unicode.IsLetter(r)
}

// isFiller reports the blank letters (Hangul fillers) that render as nothing but are not Cf.
func isFiller(r rune) bool {
	switch r {
	case 0x115F, 0x1160, 0x3164, 0xFFA0:
		return true
	}
	return false
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// homoglyphs maps Cyrillic, Greek and other non-Latin letters to the Latin letter they look like.
// Upper- and lower-case forms are listed separately because they imitate different letters
// (Greek Η looks like H, η like n). Read-only.
var homoglyphs = map[rune]rune{
	// Cyrillic capitals.
	'А': 'A', 'В': 'B', 'Е': 'E', 'К': 'K', 'М': 'M', 'Н': 'H', 'О': 'O', 'Р': 'P', 'С': 'C',
	'Т': 'T', 'У': 'Y', 'Х': 'X', 'І': 'I', 'Ј': 'J', 'Ѕ': 'S', 'Ԁ': 'D', 'Һ': 'H', 'Ӏ': 'I',
	'Ԛ': 'Q', 'Ԝ': 'W', 'Ү': 'Y',
	// Cyrillic small letters.
	'а': 'a', 'в': 'b', 'е': 'e', 'к': 'k', 'м': 'm', 'н': 'h', 'о': 'o', 'р': 'p', 'с': 'c',
	'т': 't', 'у': 'y', 'х': 'x', 'і': 'i', 'ј': 'j', 'ѕ': 's', 'ԁ': 'd', 'һ': 'h', 'ӏ': 'l',
	'ԛ': 'q', 'ԝ': 'w', 'ү': 'y', 'ь': 'b', 'п': 'n', 'г': 'r',
	// Greek capitals.
	'Α': 'A', 'Β': 'B', 'Ε': 'E', 'Ζ': 'Z', 'Η': 'H', 'Ι': 'I', 'Κ': 'K', 'Μ': 'M', 'Ν': 'N',
	'Ο': 'O', 'Ρ': 'P', 'Τ': 'T', 'Υ': 'Y', 'Χ': 'X',
	// Greek small letters.
	'α': 'a', 'β': 'b', 'γ': 'y', 'ε': 'e', 'η': 'n', 'ι': 'i', 'κ': 'k', 'ν': 'v', 'ο': 'o',
	'ρ': 'p', 'τ': 't', 'υ': 'u', 'χ': 'x', 'ω': 'w', 'ς': 'c',
	// Latin letters outside ASCII that pass for ASCII ones.
	'ı': 'i', 'ɑ': 'a', 'ɡ': 'g', 'ɩ': 'i', 'ʏ': 'y', 'ᴠ': 'v', 'ᴡ': 'w', 'ᴢ': 'z',
}

func foldHomoglyph(r rune) rune {
	if r < utf8.RuneSelf {
		return r
	}
	if l, ok := homoglyphs[r]; ok {
		return l
	}
	return r
}
