package policy

import (
	"encoding/base64"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"golang.org/x/text/encoding"
	"golang.org/x/text/encoding/htmlindex"
	"golang.org/x/text/encoding/ianaindex"
)

// errUnreadableHeader marks a response header the rules cannot read, or that reads two ways.
var errUnreadableHeader = errors.New("cannot be judged")

// disposition is what a Content-Disposition header says about the file a browser may save.
type disposition struct {
	// names are every file name a client may read from the header, each spelling decoded (issue
	// 49.3): filename raw, percent-decoded (Chromium decodes it, as IE did) and RFC 2047-decoded;
	// filename* (RFC 5987) in its charset; the RFC 2231 continuations filename*0, filename*1, ...
	// (Firefox and Go join them); and name, which some clients fall back to.
	names []string
	// attachment is true for "attachment", an unknown type (Chromium treats it as attachment) or
	// no type at all.
	attachment bool
}

// parseDisposition reads the Content-Disposition values of one response. It is written for this
// check rather than taken from mime.ParseMediaType, which decodes filename* only in UTF-8 and
// US-ASCII, drops a value in any other charset without an error, and ignores RFC 2047; no Go
// library reads the header as browsers do. It reads a superset of what Chromium's
// net::HttpContentDisposition honours (filename* before filename, RFC 2047 words and
// percent-escapes in filename, an unknown type as attachment, a first segment with "=" as a
// parameter), and refuses (errUnreadableHeader) what it cannot read: two different values
// (Chromium refuses the response; other clients pick one), a parameter given twice, a parameter
// without "=", an unterminated quote, a charset it cannot decode, an encoded word that does not
// decode, a continuation with a gap.
func parseDisposition(values []string) (disposition, error) {
	var d disposition
	values = distinct(values)
	if len(values) == 0 {
		return d, nil
	}
	if len(values) > 1 {
		return d, fmt.Errorf("%w: the response has %d different Content-Disposition headers; clients differ on which they honour", errUnreadableHeader, len(values))
	}
	segs, err := splitParams(values[0], ';')
	if err != nil {
		return d, err
	}
	d.attachment = true
	if first := strings.TrimSpace(segs[0]); first != "" && !strings.Contains(first, "=") {
		if !isToken(first) {
			return d, fmt.Errorf("%w: the disposition type %s is not a token", errUnreadableHeader, clipQuote(first))
		}
		d.attachment = !strings.EqualFold(first, "inline")
		segs = segs[1:]
	}
	params, err := dispositionParams(segs)
	if err != nil {
		return d, err
	}
	d.names, err = dispositionNames(params)
	return d, err
}

// dispositionParams reads name=value segments into a map keyed by the lower-case name; a value's
// quotes are removed and its backslash escapes undone.
func dispositionParams(segs []string) (map[string]string, error) {
	params := map[string]string{}
	for _, seg := range segs {
		seg = strings.TrimSpace(seg)
		if seg == "" {
			continue
		}
		name, value, ok := strings.Cut(seg, "=")
		name = strings.ToLower(strings.TrimSpace(name))
		if !ok || !isToken(name) {
			return nil, fmt.Errorf("%w: the parameter %s is not name=value", errUnreadableHeader, clipQuote(seg))
		}
		if _, dup := params[name]; dup {
			return nil, fmt.Errorf("%w: the parameter %s is given twice; clients differ on which they honour", errUnreadableHeader, clipQuote(name))
		}
		v, err := unquoteParam(strings.TrimSpace(value))
		if err != nil {
			return nil, fmt.Errorf("%w: the parameter %s: %v", errUnreadableHeader, clipQuote(name), err)
		}
		params[name] = v
	}
	return params, nil
}

// continuationParam matches an RFC 2231 continuation: filename*0, filename*1*, ...
var continuationParam = regexp.MustCompile(`^filename\*(0|[1-9][0-9]{0,2})(\*?)$`)

// dispositionNames decodes every spelling of the file name among the parameters.
func dispositionNames(params map[string]string) ([]string, error) {
	var names []string
	for _, key := range []string{"filename", "name"} {
		if v, ok := params[key]; ok {
			spellings, err := plainNameSpellings(v)
			if err != nil {
				return nil, fmt.Errorf("%w: %s: %v", errUnreadableHeader, key, err)
			}
			names = append(names, spellings...)
		}
	}
	if v, ok := params["filename*"]; ok {
		n, err := decodeExtValue(v)
		if err != nil {
			return nil, fmt.Errorf("%w: filename*: %v", errUnreadableHeader, err)
		}
		names = append(names, n)
	}
	joined, err := joinContinuations(params)
	if err != nil {
		return nil, fmt.Errorf("%w: filename*0...: %v", errUnreadableHeader, err)
	}
	if joined != "" {
		names = append(names, joined)
	}
	return distinct(names), nil
}

// plainNameSpellings returns a filename value as written, RFC 2047-decoded, and each of those
// percent-decoded once (Chromium's DecodeFilenameValue does one or the other, word by word).
func plainNameSpellings(v string) ([]string, error) {
	dec, err := decodeEncodedWords(v)
	if err != nil {
		return nil, err
	}
	return distinct([]string{v, dec, percentDecode(v), percentDecode(dec)}), nil
}

// encodedWord matches an RFC 2047 encoded word: =?charset?B|Q?text?= (a language after "*" in the
// charset, RFC 2231, is dropped with it).
var encodedWord = regexp.MustCompile(`=\?([^?\s]*)\?([BbQq])\?([^?\s]*)\?=`)

// decodeEncodedWords decodes every RFC 2047 encoded word in s, wherever it stands (Chromium needs
// a word to stand alone, Go's mime.WordDecoder does not: both readings are covered), dropping the
// whitespace between two adjacent words. B accepts base64 with or without its padding. A word
// that does not decode, or whose charset cannot be decoded, is an error: a client may read it.
func decodeEncodedWords(s string) (string, error) {
	if !strings.Contains(s, "=?") {
		return s, nil
	}
	var failure error
	out := encodedWord.ReplaceAllStringFunc(s, func(w string) string {
		m := encodedWord.FindStringSubmatch(w)
		raw, err := decodeWordText(m[2], m[3])
		if err == nil {
			var text string
			if text, err = decodeCharset(strings.SplitN(m[1], "*", 2)[0], raw); err == nil {
				return text
			}
		}
		failure = fmt.Errorf("the encoded word %s does not decode: %v", clipQuote(w), err)
		return w
	})
	if failure != nil {
		return "", failure
	}
	return out, nil
}

func decodeWordText(enc, text string) ([]byte, error) {
	if enc == "B" || enc == "b" {
		if b, err := base64.StdEncoding.DecodeString(text); err == nil {
			return b, nil
		}
		return base64.RawStdEncoding.DecodeString(strings.TrimRight(text, "="))
	}
	q := []byte(strings.ReplaceAll(text, "_", " "))
	out := make([]byte, 0, len(q))
	for i := 0; i < len(q); i++ {
		if q[i] == '=' {
			if i+2 >= len(q) || !isHex(q[i+1]) || !isHex(q[i+2]) {
				return nil, fmt.Errorf("a bad Q escape")
			}
			out = append(out, unhex(q[i+1])<<4|unhex(q[i+2]))
			i += 2
			continue
		}
		out = append(out, q[i])
	}
	return out, nil
}

// decodeExtValue decodes an RFC 5987 ext-value, charset'language'percent-encoded-bytes, in its
// charset.
func decodeExtValue(v string) (string, error) {
	charset, rest, ok := strings.Cut(v, "'")
	if !ok {
		return "", fmt.Errorf("%s is not charset'language'value", clipQuote(v))
	}
	if _, rest, ok = strings.Cut(rest, "'"); !ok {
		return "", fmt.Errorf("%s is not charset'language'value", clipQuote(v))
	}
	return decodeCharset(charset, []byte(percentDecode(rest)))
}

// joinContinuations joins filename*0, filename*1, ... (RFC 2231): an encoded first segment carries
// the charset, encoded segments are percent-decoded, plain ones taken as written. "" when there
// are none.
func joinContinuations(params map[string]string) (string, error) {
	type seg struct {
		value   string
		encoded bool
	}
	segs := map[int]seg{}
	for name, v := range params {
		m := continuationParam.FindStringSubmatch(name)
		if m == nil {
			continue
		}
		i, _ := strconv.Atoi(m[1])
		if _, dup := segs[i]; dup {
			return "", fmt.Errorf("segment %d is given twice", i)
		}
		segs[i] = seg{value: v, encoded: m[2] == "*"}
	}
	if len(segs) == 0 {
		return "", nil
	}
	charset := "utf-8"
	var b strings.Builder
	for i := range len(segs) {
		s, ok := segs[i]
		if !ok {
			return "", fmt.Errorf("segment %d is missing", i)
		}
		v := s.value
		if s.encoded {
			if i == 0 {
				cs, rest, ok1 := strings.Cut(v, "'")
				_, rest, ok2 := strings.Cut(rest, "'")
				if !ok1 || !ok2 {
					return "", fmt.Errorf("%s is not charset'language'value", clipQuote(v))
				}
				charset, v = cs, rest
			}
			v = percentDecode(v)
		}
		b.WriteString(v)
	}
	return decodeCharset(charset, []byte(b.String()))
}

// decodeCharset decodes b from the named charset (WHATWG labels, then IANA names: what a browser's
// converter knows). UTF-8 and US-ASCII bytes are taken as they are; an unknown charset is an
// error, since a client that knows it reads a name the rules did not.
func decodeCharset(name string, b []byte) (string, error) {
	label := strings.ToLower(strings.TrimSpace(name))
	switch label {
	case "utf-8", "utf8", "us-ascii":
		return string(b), nil
	case "":
		return "", fmt.Errorf("no charset")
	}
	// WHATWG maps a few legacy labels (iso-2022-kr, hz-gb-2312) to the replacement encoding, which
	// decodes anything to U+FFFD; a converter that knows them (ICU's, Chromium's) reads the name.
	var enc encoding.Encoding
	if e, err := htmlindex.Get(label); err == nil && e != encoding.Replacement {
		enc = e
	} else if e, err := ianaindex.IANA.Encoding(label); err == nil && e != nil && e != encoding.Replacement {
		enc = e
	}
	if enc == nil {
		return "", fmt.Errorf("the charset %s cannot be decoded", clipQuote(name))
	}
	out, err := enc.NewDecoder().Bytes(b)
	if err != nil {
		return "", fmt.Errorf("the charset %s: %v", clipQuote(name), err)
	}
	return string(out), nil
}

// splitParams splits a header value on sep outside quoted strings; an unterminated quote is an
// error. It always returns at least one element.
func splitParams(v string, sep byte) ([]string, error) {
	var out []string
	start, quoted := 0, false
	for i := 0; i < len(v); i++ {
		switch c := v[i]; {
		case quoted && c == '\\':
			i++
		case c == '"':
			quoted = !quoted
		case !quoted && c == sep:
			out = append(out, v[start:i])
			start = i + 1
		}
	}
	if quoted {
		return nil, fmt.Errorf("%w: %s has an unterminated quoted string", errUnreadableHeader, clipQuote(v))
	}
	return append(out, v[start:]), nil
}

// unquoteParam returns a parameter value without its quotes and backslash escapes; a quoted value
// must end at its closing quote.
func unquoteParam(v string) (string, error) {
	if !strings.HasPrefix(v, `"`) {
		if strings.Contains(v, `"`) {
			return "", fmt.Errorf("a quote inside an unquoted value")
		}
		return v, nil
	}
	var b strings.Builder
	for i := 1; i < len(v); i++ {
		switch v[i] {
		case '\\':
			if i+1 < len(v) {
				i++
				b.WriteByte(v[i])
			}
		case '"':
			if strings.TrimSpace(v[i+1:]) != "" {
				return "", fmt.Errorf("text after the closing quote")
			}
			return b.String(), nil
		default:
			b.WriteByte(v[i])
		}
	}
	return "", fmt.Errorf("an unterminated quoted string")
}

// percentDecode undoes every valid %XX escape and leaves anything else as it is (a browser's
// lenient unescaping, not url.PathUnescape's, which fails on the first bad escape).
func percentDecode(s string) string {
	if !strings.Contains(s, "%") {
		return s
	}
	b := make([]byte, 0, len(s))
	for i := 0; i < len(s); i++ {
		if s[i] == '%' && i+2 < len(s) && isHex(s[i+1]) && isHex(s[i+2]) {
			b = append(b, unhex(s[i+1])<<4|unhex(s[i+2]))
			i += 2
			continue
		}
		b = append(b, s[i])
	}
	return string(b)
}

func isHex(c byte) bool {
	return ('0' <= c && c <= '9') || ('a' <= c && c <= 'f') || ('A' <= c && c <= 'F')
}

func unhex(c byte) byte {
	switch {
	case c <= '9':
		return c - '0'
	case c <= 'F':
		return c - 'A' + 10
	}
	return c - 'a' + 10
}

// distinct returns the non-empty strings of xs, each once, in their first order.
func distinct(xs []string) []string {
	var out []string
	for _, x := range xs {
		if x != "" && !slices.Contains(out, x) {
			out = append(out, x)
		}
	}
	return out
}
