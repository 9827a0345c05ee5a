package policy

import (
	"fmt"
	"net/url"
	"strings"
)

// maxDecodeRounds bounds repeated percent-decoding: a path still encoded after this many rounds is
// rejected rather than guessed at.
const maxDecodeRounds = 4

// NormalizePath reduces a URL path to the form path rules are matched on. It percent-decodes
// repeatedly until no escape is left (so "%252e" counts as "."), turns backslashes into slashes,
// lower-cases, collapses duplicate slashes and resolves "." and ".." segments; the result always
// starts with "/" and keeps a trailing slash. "/%61dmin", "/pratiche/../admin", "//ADMIN" and
// "/pratiche/%2e%2e/admin" all become "/admin".
//
// An invalid escape ("%zz", a lone "%", also one produced by decoding) or an encoding nested more
// than a few levels deep is an error wrapping ErrInvalidPath. NormalizePath is idempotent.
func NormalizePath(p string) (string, error) {
	s := p
	for round := 0; strings.Contains(s, "%"); round++ {
		if round == maxDecodeRounds {
			return "", fmt.Errorf("%w: %q is percent-encoded more than %d times", ErrInvalidPath, p, maxDecodeRounds)
		}
		d, err := url.PathUnescape(s)
		if err != nil {
			return "", fmt.Errorf("%w: %q: %w", ErrInvalidPath, p, err)
		}
		s = d
	}
	s = strings.ReplaceAll(s, `\`, "/")
	s = strings.ToLower(s)
	return resolveDotSegments(s), nil
}

// resolveDotSegments drops empty and "." segments and applies ".." (never above the root).
func resolveDotSegments(s string) string {
	segs := strings.Split(s, "/")
	out := make([]string, 0, len(segs))
	trailing := false
	for _, seg := range segs {
		trailing = false
		switch seg {
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
