package policy

import (
	"fmt"
	"net/url"
	"strings"

	"golang.org/x/text/unicode/norm"
)

// maxDecodeRounds bounds repeated percent-decoding: a path still encoded after this many rounds is
// rejected rather than guessed at.
const maxDecodeRounds = 4

// NormalizePath reduces a URL path to the form path rules are matched on, the form a lenient
// backend routes by: every spelling that such a router sends to the same handler gives the same
// result. It percent-decodes and NFKC-folds repeatedly until neither changes anything (so "%252e"
// and the full-width "．．／" count as "." and "../"), turns backslashes into slashes, lower-cases,
// drops ";params" from every segment (Tomcat and Spring read "..;" as ".." and "admin;x=1" as
// "admin"), cuts a segment at a NUL, trims trailing spaces and dots from a segment (IIS and Windows
// file systems ignore them), collapses duplicate
// slashes and resolves "." and ".." segments; the result always starts with "/" and keeps a
// trailing slash. "/%61dmin", "/pratiche/../admin", "//ADMIN", "/pratiche/..;/admin",
// "/admin;jsessionid=1", "/ａｄｍｉｎ" and "/pratiche/%2e%2e/admin" all become "/admin".
//
// An invalid escape ("%zz", a lone "%", also one produced by decoding) or an encoding nested more
// than a few levels deep is an error wrapping ErrInvalidPath. NormalizePath is idempotent.
func NormalizePath(p string) (string, error) {
	s := p
	for round := 0; ; round++ {
		folded := s
		if strings.Contains(folded, "%") {
			d, err := url.PathUnescape(folded)
			if err != nil {
				return "", fmt.Errorf("%w: %q: %w", ErrInvalidPath, p, err)
			}
			folded = d
		}
		if !isASCII(folded) {
			folded = norm.NFKC.String(folded)
		}
		if folded == s {
			break
		}
		if round == maxDecodeRounds {
			return "", fmt.Errorf("%w: %q is percent-encoded more than %d times", ErrInvalidPath, p, maxDecodeRounds)
		}
		s = folded
	}
	s = strings.ReplaceAll(s, `\`, "/")
	s = strings.ToLower(s)
	return resolveDotSegments(s), nil
}

// lenientSegment is one path segment as a lenient backend reads it: no ";params", nothing from a
// NUL on, no trailing spaces or dots (a segment of dots only stays as written).
func lenientSegment(seg string) string {
	if i := strings.IndexByte(seg, ';'); i >= 0 {
		seg = seg[:i]
	}
	if i := strings.IndexByte(seg, 0); i >= 0 {
		seg = seg[:i]
	}
	if strings.Trim(seg, ".") == "" {
		return seg // "", ".", ".." and a name of dots only ("...") stay as written
	}
	trimmed := strings.TrimRight(seg, " .")
	if trimmed == "" {
		return seg // spaces only: a name, kept as written
	}
	return trimmed
}

// resolveDotSegments drops empty and "." segments and applies ".." (never above the root).
func resolveDotSegments(s string) string {
	segs := strings.Split(s, "/")
	out := make([]string, 0, len(segs))
	trailing := false
	for _, seg := range segs {
		trailing = false
		switch seg = lenientSegment(seg); seg {
		case "":
			trailing = true
		case ".":
			trailing = true
		case "..":
			if len(out) > 0 {
				out = out[:len(out)-1]
			}
			trailing = true
		default:
			out = append(out, seg)
		}
	}
	if len(out) == 0 {
		return "/"
	}
	res := "/" + strings.Join(out, "/")
	if trailing {
		res += "/"
	}
	return res
}
