package observe

import (
	"errors"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// This file reads the three quoting styles Playwright's snapshot renderer
// uses (playwright-core packages/isomorphic/yaml.ts and
// ariaSnapshotRenderer.ts): a whole item key in YAML single quotes ('' for
// '), an accessible name as a JSON string inside the key, and an inline
// value as a YAML double-quoted scalar.

var (
	errUnterminated = errors.New("unterminated quoted string")
	errBadEscape    = errors.New("bad escape sequence")
)

// readSingleQuoted reads a YAML single-quoted scalar at the start of s
// (s starts with a single quote). It returns the unquoted text and the rest of s after the
// closing quote.
func readSingleQuoted(s string) (text, rest string, err error) {
	var b strings.Builder
	i := 1
	for {
		j := strings.IndexByte(s[i:], '\'')
		if j < 0 {
			return "", "", errUnterminated
		}
		b.WriteString(s[i : i+j])
		i += j + 1
		if i < len(s) && s[i] == '\'' { // '' is an escaped quote
			b.WriteByte('\'')
			i++
			continue
		}
		return b.String(), s[i:], nil
	}
}

// readJSONString reads a JSON string at the start of s (s[0] == '"'), as
// JSON.stringify writes accessible names. It returns the decoded text and
// the rest of s after the closing quote. Lone surrogates decode to U+FFFD.
func readJSONString(s string) (text, rest string, err error) {
	return readQuoted(s, jsonEscape)
}

// readQuoted reads a double-quoted string at the start of s (s[0] == '"'),
// decoding each backslash escape with unescape, and returns the text and the
// rest of s after the closing quote. JSON strings and YAML double-quoted
// scalars differ only in their escapes.
func readQuoted(s string, unescape func(b *strings.Builder, e byte, after string) (int, error)) (text, rest string, err error) {
	// Fast path: no escapes.
	if j := strings.IndexAny(s[1:], "\"\\"); j >= 0 && s[1+j] == '"' {
		return s[1 : 1+j], s[2+j:], nil
	}
	var b strings.Builder
	i := 1
	for i < len(s) {
		c := s[i]
		switch c {
		case '"':
			return b.String(), s[i+1:], nil
		case '\\':
			if i+1 >= len(s) {
				return "", "", errUnterminated
			}
			e := s[i+1]
			i += 2
			n, err := unescape(&b, e, s[i:])
			if err != nil {
				return "", "", err
			}
			i += n
		default:
			b.WriteByte(c)
			i++
		}
	}
	return "", "", errUnterminated
}

// jsonEscape writes the character the JSON escape \e stands for; after is
// the rest of the string. It returns how many bytes of after the escape used
// (the hex digits of \u).
func jsonEscape(b *strings.Builder, e byte, after string) (int, error) {
	switch e {
	case '"', '\\', '/':
		b.WriteByte(e)
	case 'b':
		b.WriteByte('\b')
	case 'f':
		b.WriteByte('\f')
	case 'n':
		b.WriteByte('\n')
	case 'r':
		b.WriteByte('\r')
	case 't':
		b.WriteByte('\t')
	case 'u':
		r, n, ok := readU16(after)
		if !ok {
			return 0, errBadEscape
		}
		b.WriteRune(r)
		return n, nil
	default:
		return 0, errBadEscape
	}
	return 0, nil
}

// readU16 decodes the hex digits after a \u escape, joining a surrogate
// pair written as \uD83D\uDE80. It returns the rune and the bytes consumed.
func readU16(s string) (rune, int, bool) {
	hi, ok := hex4(s)
	if !ok {
		return 0, 0, false
	}
	r := rune(hi)
	if utf16.IsSurrogate(r) && len(s) >= 10 && s[4] == '\\' && s[5] == 'u' {
		if lo, ok := hex4(s[6:]); ok {
			if p := utf16.DecodeRune(r, rune(lo)); p != utf8.RuneError {
				return p, 10, true
			}
		}
	}
	if utf16.IsSurrogate(r) {
		r = utf8.RuneError
	}
	return r, 4, true
}

func hex4(s string) (uint16, bool) {
	if len(s) < 4 {
		return 0, false
	}
	v, err := strconv.ParseUint(s[:4], 16, 16)
	return uint16(v), err == nil
}

// readDoubleQuoted reads a YAML double-quoted scalar that must span all of
// s. Besides Playwright's escapes (\\ \" \b \f \n \r \t \xNN) it accepts
// the other YAML escapes a hand-written snapshot might use.
func readDoubleQuoted(s string) (string, error) {
	if len(s) < 2 || s[0] != '"' {
		return "", errUnterminated
	}
	text, rest, err := readQuoted(s, yamlEscape)
	if err != nil {
		return "", err
	}
	if rest != "" {
		return "", errors.New("text after closing quote")
	}
	return text, nil
}

// yamlEscape writes the character the YAML escape \e stands for; after is
// the rest of the scalar. It returns how many bytes of after the escape used
// (the hex digits of \x, \u and \U). YAML's escapes are JSON's single-letter
// ones plus its own; its \u is one code point, never half a surrogate pair.
func yamlEscape(b *strings.Builder, e byte, after string) (int, error) {
	switch e {
	case ' ':
		b.WriteByte(e)
	case '0':
		b.WriteByte(0)
	case 'a':
		b.WriteByte('\a')
	case 'e':
		b.WriteByte(0x1b)
	case '\t':
		b.WriteByte('\t')
	case 'v':
		b.WriteByte('\v')
	case 'N':
		b.WriteRune('\u0085')
	case '_':
		b.WriteRune('\u00a0')
	case 'x', 'u', 'U':
		n := 2
		if e == 'u' {
			n = 4
		} else if e == 'U' {
			n = 8
		}
		if n > len(after) {
			return 0, errBadEscape
		}
		v, err := strconv.ParseUint(after[:n], 16, 32)
		if err != nil || !utf8.ValidRune(rune(v)) {
			return 0, errBadEscape
		}
		b.WriteRune(rune(v))
		return n, nil
	default:
		return jsonEscape(b, e, after)
	}
	return 0, nil
}

// quote renders s in double quotes for compact views, escaping only '"',
// '\' and control characters; every other character, invisible or not, is
// kept verbatim.
func quote(b *strings.Builder, s string) {
	b.WriteByte('"')
	start := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 0x20 && c != '"' && c != '\\' && c != 0x7f {
			continue
		}
		b.WriteString(s[start:i])
		switch c {
		case '"':
			b.WriteString(`\"`)
		case '\\':
			b.WriteString(`\\`)
		case '\n':
			b.WriteString(`\n`)
		case '\t':
			b.WriteString(`\t`)
		case '\r':
			b.WriteString(`\r`)
		default:
			b.WriteString(`\x`)
			b.WriteByte("0123456789abcdef"[c>>4])
			b.WriteByte("0123456789abcdef"[c&0xf])
		}
		start = i + 1
	}
	b.WriteString(s[start:])
	b.WriteByte('"')
}
