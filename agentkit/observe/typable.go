package observe

import (
	"strings"
	"unicode"
)

// TypableName is an accessible name as a person can type it: without the glyphs of icon fonts, which
// render as pictures and cannot be typed or read aloud. It drops every Private Use Area character
// (U+E000–U+F8FF and planes 15 and 16: Font Awesome, Material Design Icons, Remix Icon and every
// icon font put their glyphs there), the object replacement character (U+FFFC) that stands for an
// embedded picture, and the variation selectors that follow a dropped glyph; then, if anything was dropped, it collapses the spaces the glyphs stood
// between and trims the ends: "aperta \ueb99 \uea4d" is "aperta", "\uea13 New record" is "New
// record". A name without such glyphs is returned unchanged, byte for byte.
//
// Observation names (Node.Name) and the names steps give (Observation.Find) both go through it, so a
// diligent: or attack: step says `button "aperta"`; Node.RawName keeps the name as the page gave it,
// for the evidence.
func TypableName(s string) string {
	if strings.IndexFunc(s, isIconGlyph) < 0 {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	dropped := false // the previous rune was a dropped glyph
	for _, r := range s {
		switch {
		case isIconGlyph(r):
			dropped = true
			continue
		case dropped && unicode.Is(unicode.Variation_Selector, r):
			continue
		}
		dropped = false
		b.WriteRune(r)
	}
	return strings.Join(strings.Fields(b.String()), " ")
}

// isIconGlyph reports the runes TypableName drops: private use (Co, which covers the BMP's Private
// Use Area and planes 15 and 16) and the object replacement character. U+FFFD stays: it marks text
// the snapshot could not decode, not a picture.
func isIconGlyph(r rune) bool {
	return r == 0xFFFC || unicode.Is(unicode.Co, r)
}

// EvidenceName is the node's name for the evidence: RawName, as the page gave it, or Name for a node
// built without one.
func (n *Node) EvidenceName() string {
	if n.RawName != "" {
		return n.RawName
	}
	return n.Name
}
