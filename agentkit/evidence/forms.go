package evidence

import (
	"bytes"
	"encoding/base64"
	"encoding/binary"
	"regexp"
	"slices"
	"unicode/utf16"
	"unicode/utf8"
)

// The forms a secret can take in an artifact, as Scan names them.
const (
	FormPlain   = "plain"
	FormURL     = "url-encoded"  // %XX (either case) and + for a space, as a query, a form body or a path has it
	FormJSON    = "json-escaped" // \uXXXX (either case), \" \\ \/ \b \f \n \r \t
	FormHTML    = "html-escaped" // &#NN; &#xHH; &amp; &lt; &gt; &quot; &apos;
	FormBase64  = "base64"       // standard alphabet, at each of the three byte alignments
	FormBase64U = "base64url"    // URL alphabet, at each of the three byte alignments
	FormUTF16LE = "utf-16le"
	FormUTF16BE = "utf-16be"
)

// Shortest forms matched in binary encodings: a base64 run of fewer determined characters, or a
// UTF-16 string of fewer bytes, would match ordinary data by chance (a secret of under five bytes has
// no base64 form here; one of under four characters no UTF-16 form).
const (
	minBase64Core = 6
	minUTF16Bytes = 8
)

// maxUnit bounds the length of one character of a secret in its text forms: "&#x0010FFFF;" and
// four UTF-8 bytes percent-encoded are the longest.
const maxUnit = 12

// literal is one byte form of a secret: an exact byte string and what replaces it.
type literal struct {
	b    []byte
	repl []byte
	form string
}

// matcher finds every form of a set of secrets in bytes: the text forms (plain, URL-, JSON- and
// HTML-escaped, in any mixture, character by character) by matching each secret's characters in turn
// where one of its forms can start (first), the byte forms (base64 runs, UTF-16) as literals. maxLen
// bounds a match's length, for streaming.
type matcher struct {
	secrets []string
	texts   [][]unit // each secret's characters, in the order of secrets
	first   [256][]int
	lits    []literal
	maxLen  int
}

// unit is one character of a secret: the rune and its UTF-8 bytes.
type unit struct {
	r   rune
	lit []byte
}

// span is one match: b[start:end] is replaced by repl.
type span struct {
	start, end int
	repl       []byte
	form       string
}

// newMatcher builds the matcher of secrets, longest first so that a secret containing another is
// matched whole. Empty secrets are ignored; nil when none is left.
func newMatcher(secrets []string) *matcher {
	var ss []string
	for _, s := range secrets {
		if s != "" && !slices.Contains(ss, s) {
			ss = append(ss, s)
		}
	}
	if len(ss) == 0 {
		return nil
	}
	slices.SortStableFunc(ss, func(a, b string) int { return len(b) - len(a) })
	m := &matcher{secrets: ss}
	for i, s := range ss {
		var units []unit
		for _, r := range s {
			units = append(units, unit{r: r, lit: []byte(string(r))})
		}
		m.texts = append(m.texts, units)
		m.maxLen = max(m.maxLen, maxUnit*len(units))
		starts := []byte{s[0], '%', '\\', '&'}
		if units[0].r == ' ' {
			starts = append(starts, '+')
		}
		for _, c := range starts {
			if !slices.Contains(m.first[c], i) {
				m.first[c] = append(m.first[c], i)
			}
		}
		for _, l := range byteForms(s) {
			if !slices.ContainsFunc(m.lits, func(o literal) bool { return bytes.Equal(o.b, l.b) }) {
				m.lits = append(m.lits, l)
				m.maxLen = max(m.maxLen, len(l.b))
			}
		}
	}
	return m
}

// matchText returns the length of the text form of units at the start of b, -1 when there is none.
// Where a character's forms could overlap (a secret's own "%" and a "%25"), each is tried in turn.
func matchText(units []unit, b []byte) int {
	if len(units) == 0 {
		return 0
	}
	var ns [8]int
	for _, n := range units[0].forms(b, ns[:0]) {
		if rest := matchText(units[1:], b[n:]); rest >= 0 {
			return n + rest
		}
	}
	return -1
}

// jsonShort are JSON's two-character escapes.
var jsonShort = map[rune]byte{'"': '"', '\\': '\\', '/': '/', '\b': 'b', '\f': 'f', '\n': 'n', '\r': 'r', '\t': 't'}

// htmlNamed are the named HTML entities of the characters HTML escapes.
var htmlNamed = map[rune][]string{'&': {"&amp;"}, '<': {"&lt;"}, '>': {"&gt;"}, '"': {"&quot;"}, '\'': {"&apos;"}}

// forms appends to ns the length of each form of the character u that b starts with: itself,
// percent-encoded (its UTF-8 bytes, either case), + for a space, JSON's \uXXXX (a surrogate pair
// beyond the BMP, either case) or short escape, an HTML character reference (&#N;, &#xH;, with at
// most 8 digits, or a named one).
func (u unit) forms(b []byte, ns []int) []int {
	if len(b) == 0 {
		return ns
	}
	if bytes.HasPrefix(b, u.lit) {
		ns = append(ns, len(u.lit))
	}
	switch b[0] {
	case '%':
		if n := 3 * len(u.lit); len(b) >= n {
			ok := true
			for j, c := range u.lit {
				v, good := hexValue(b[3*j+1 : 3*j+3])
				ok = ok && good && b[3*j] == '%' && v == uint32(c)
			}
			if ok {
				ns = append(ns, n)
			}
		}
	case '+':
		if u.r == ' ' {
			ns = append(ns, 1)
		}
	case '\\':
		if e, ok := jsonShort[u.r]; ok && len(b) >= 2 && b[1] == e {
			ns = append(ns, 2)
		}
		if r1, r2 := utf16.EncodeRune(u.r); r1 == utf8.RuneError {
			if jsonUnit(b, uint32(u.r)) {
				ns = append(ns, 6)
			}
		} else if jsonUnit(b, uint32(r1)) && jsonUnit(b[6:], uint32(r2)) {
			ns = append(ns, 12)
		}
	case '&':
		if n, ok := htmlReference(b, u.r); ok {
			ns = append(ns, n)
		}
	}
	return ns
}

// jsonUnit reports whether b starts with \uXXXX of v.
func jsonUnit(b []byte, v uint32) bool {
	if len(b) < 6 || b[0] != '\\' || b[1] != 'u' {
		return false
	}
	got, ok := hexValue(b[2:6])
	return ok && got == v
}

// htmlReference returns the length of the HTML character reference of r that b starts with.
func htmlReference(b []byte, r rune) (int, bool) {
	for _, e := range htmlNamed[r] {
		if bytes.HasPrefix(b, []byte(e)) {
			return len(e), true
		}
	}
	if len(b) < 4 || b[1] != '#' {
		return 0, false
	}
	i, hex := 2, b[2] == 'x' || b[2] == 'X'
	if hex {
		i++
	}
	j := i
	for j < len(b) && j-i < 8 && (hex && isHex(b[j]) || !hex && b[j] >= '0' && b[j] <= '9') {
		j++
	}
	if j == i || j >= len(b) || b[j] != ';' {
		return 0, false
	}
	var v uint64
	for k := i; k < j; k++ {
		if hex {
			d, _ := hexValue(b[k : k+1])
			v = v*16 + uint64(d)
		} else {
			v = v*10 + uint64(b[k]-'0')
		}
	}
	return j + 1, v == uint64(r)
}

func isHex(c byte) bool { return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F' }

// hexValue parses hexadecimal digits of either case.
func hexValue(b []byte) (uint32, bool) {
	var v uint32
	for _, c := range b {
		switch {
		case c >= '0' && c <= '9':
			v = v<<4 | uint32(c-'0')
		case c >= 'a' && c <= 'f':
			v = v<<4 | uint32(c-'a'+10)
		case c >= 'A' && c <= 'F':
			v = v<<4 | uint32(c-'A'+10)
		default:
			return 0, false
		}
	}
	return v, true
}

// byteForms are the forms of s that are exact byte strings: its base64 runs (standard and URL
// alphabet) at each of the three alignments a longer encoded value can give it (only the characters
// that s alone determines), and its UTF-16 (both byte orders).
func byteForms(s string) []literal {
	var out []literal
	n := len(s)
	for k := range 3 {
		src := append(make([]byte, k), s...)
		lo, hi := (8*k+5)/6, 8*(k+n)/6
		if hi-lo < minBase64Core {
			continue
		}
		for _, e := range []struct {
			enc  *base64.Encoding
			form string
		}{{base64.RawStdEncoding, FormBase64}, {base64.RawURLEncoding, FormBase64U}} {
			core := []byte(e.enc.EncodeToString(src)[lo:hi])
			if !slices.ContainsFunc(out, func(l literal) bool { return bytes.Equal(l.b, core) }) {
				out = append(out, literal{b: core, repl: []byte(Redacted), form: e.form})
			}
		}
	}
	if le := utf16Bytes(s, binary.LittleEndian); len(le) >= minUTF16Bytes {
		out = append(out,
			literal{b: le, repl: utf16Bytes(Redacted, binary.LittleEndian), form: FormUTF16LE},
			literal{b: utf16Bytes(s, binary.BigEndian), repl: utf16Bytes(Redacted, binary.BigEndian), form: FormUTF16BE})
	}
	return out
}

// utf16Bytes is s in UTF-16 in the byte order o.
func utf16Bytes(s string, o binary.AppendByteOrder) []byte {
	var b []byte
	for _, u := range utf16.Encode([]rune(s)) {
		b = o.AppendUint16(b, u)
	}
	return b
}

// find returns the matches in b, in order and not overlapping: at the same start the longer wins.
func (m *matcher) find(b []byte) []span {
	var all []span
	for i := 0; i < len(b); i++ {
		for i < len(b) && m.first[b[i]] == nil {
			i++
		}
		if i == len(b) {
			break
		}
		for _, k := range m.first[b[i]] {
			if n := matchText(m.texts[k], b[i:]); n > 0 {
				all = append(all, span{start: i, end: i + n, repl: []byte(Redacted)})
				i += n - 1
				break
			}
		}
	}
	for _, l := range m.lits {
		for off := 0; ; {
			i := bytes.Index(b[off:], l.b)
			if i < 0 {
				break
			}
			all = append(all, span{start: off + i, end: off + i + len(l.b), repl: l.repl, form: l.form})
			off += i + len(l.b)
		}
	}
	if len(m.lits) > 0 {
		slices.SortFunc(all, func(a, b span) int {
			if a.start != b.start {
				return a.start - b.start
			}
			return b.end - a.end
		})
	}
	out := all[:0]
	end := 0
	for _, s := range all {
		if s.start >= end {
			out = append(out, s)
			end = s.end
		}
	}
	return out
}

var (
	jsonEscapePattern    = regexp.MustCompile(`\\(u[0-9a-fA-F]{4}|["\\/bfnrt])`)
	htmlReferencePattern = regexp.MustCompile(`&(#[0-9]+|#[xX][0-9a-fA-F]+|[a-z]+);`)
)

// textForm names the text form of a match of the text pattern by the escape it most likely holds
// (for a report; the match itself does not depend on it).
func (m *matcher) textForm(b []byte) string {
	s := string(b)
	switch {
	case slices.Contains(m.secrets, s):
		return FormPlain
	case jsonEscapePattern.MatchString(s):
		return FormJSON
	case htmlReferencePattern.MatchString(s):
		return FormHTML
	}
	return FormURL
}
