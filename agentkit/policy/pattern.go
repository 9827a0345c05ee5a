package policy

import (
	"fmt"
	"regexp"
)

// Pattern is a compiled regular expression that remembers its source text.
type Pattern struct {
	Source string
	re     *regexp.Regexp
}

// NewPattern compiles src (RE2 syntax, as in package regexp).
func NewPattern(src string) (*Pattern, error) {
	re, err := regexp.Compile(src)
	if err != nil {
		return nil, fmt.Errorf("compile pattern %q: %w", src, err)
	}
	return &Pattern{Source: src, re: re}, nil
}

// MustPattern is NewPattern for sources known to be valid; it panics on an invalid one.
func MustPattern(src string) *Pattern {
	p, err := NewPattern(src)
	if err != nil {
		panic(err)
	}
	return p
}

// MatchString reports whether s contains a match of the pattern. A Pattern built by hand (not by
// NewPattern or Parse) is compiled on each call; an invalid one never matches, and deny rules
// treat it as matching (see matchDeny).
func (p *Pattern) MatchString(s string) bool {
	ok, _ := p.match(s)
	return ok
}

// String returns the source text.
func (p *Pattern) String() string {
	if p == nil {
		return "<nil>"
	}
	return p.Source
}

// match reports whether s matches and whether the pattern is usable at all.
func (p *Pattern) match(s string) (matched, valid bool) {
	if p == nil {
		return false, false
	}
	re := p.re
	if re == nil {
		var err error
		if re, err = regexp.Compile(p.Source); err != nil {
			return false, false
		}
	}
	return re.MatchString(s), true
}

// matchDeny is match for deny rules: it fails closed, so an unusable pattern matches everything.
func (p *Pattern) matchDeny(s string) bool {
	ok, valid := p.match(s)
	return ok || !valid
}
