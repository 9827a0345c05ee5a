package observe

import (
	"fmt"
	"strconv"
	"strings"
)

// Box is an element's bounding box as the snapshot printed it (`[box=x,y,width,height]`, CSS pixels
// relative to its frame's viewport, rounded): where the element is, for the browser edge's test of
// whether it is on top. It is no part of what the page says (Hash leaves it out).
type Box struct {
	X, Y, Width, Height int
}

// Centre is the point a click on the box lands on.
func (b Box) Centre() (x, y float64) {
	return float64(b.X) + float64(b.Width)/2, float64(b.Y) + float64(b.Height)/2
}

// parseBox reads "x,y,width,height".
func parseBox(s string) (Box, error) {
	parts := strings.Split(s, ",")
	if len(parts) != 4 {
		return Box{}, fmt.Errorf("bad box %q: want x,y,width,height", s)
	}
	var v [4]int
	for i, p := range parts {
		n, err := strconv.Atoi(p)
		if err != nil {
			return Box{}, fmt.Errorf("bad box %q: %w", s, err)
		}
		v[i] = n
	}
	if v[2] < 0 || v[3] < 0 {
		return Box{}, fmt.Errorf("bad box %q: negative size", s)
	}
	return Box{X: v[0], Y: v[1], Width: v[2], Height: v[3]}, nil
}

// MarkCovered marks the element with raw ref rawRef as covered by another element (an overlay, a
// side panel, a modal's backdrop), by describing what covers it ("aside.panel"): a click on its
// centre would land on that element, so the element is no target until what covers it is closed.
// It reports whether the observation has such an element. The browser edge calls it once per covered
// element right after Parse.
func (o *Observation) MarkCovered(rawRef, by string) bool {
	for i := range o.Nodes {
		if o.Nodes[i].RawRef == rawRef {
			o.Nodes[i].CoveredBy = by
			if by == "" {
				o.Nodes[i].CoveredBy = "another element"
			}
			return true
		}
	}
	return false
}

// Covered reports whether another element lies on top of the node at its centre (MarkCovered).
func (n Node) Covered() bool { return n.CoveredBy != "" }

// OnTop reports whether the node can be acted on where it is: it has a ref and nothing covers it.
func (n Node) OnTop() bool { return n.RawRef != "" && n.CoveredBy == "" }
