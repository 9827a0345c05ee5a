package observe

import (
	"fmt"
	"strconv"
	"strings"
)

// parseBox reads a snapshot's `[box=x,y,width,height]` (CSS pixels relative to the frame's viewport,
// rounded) into Node.Box.
func parseBox(s string) ([4]int, error) {
	var v [4]int
	parts := strings.Split(s, ",")
	if len(parts) != 4 {
		return v, fmt.Errorf("bad box %q: want x,y,width,height", s)
	}
	for i, p := range parts {
		n, err := strconv.Atoi(p)
		if err != nil {
			return v, fmt.Errorf("bad box %q: %w", s, err)
		}
		v[i] = n
	}
	if v[2] < 0 || v[3] < 0 {
		return v, fmt.Errorf("bad box %q: negative size", s)
	}
	return v, nil
}

// reachThroughLabels gives each visually hidden native toggle (a checkbox, radio or switch without a
// ref) the ref of the element around it, when that element is a generic with a ref, no name, and no
// other child but text (a label, or a field's wrapper): the toggle is acted on through it
// (Node.ViaLabel), and the wrapper, which stood for nothing else, loses its ref. Anything else is left as
// it is: a wrapper with other controls, or two toggles, is no one toggle's label.
func (p *parser) reachThroughLabels() {
	nodes := p.o.Nodes
	for i := range nodes {
		n := &nodes[i]
		if n.RawRef != "" || n.Parent < 0 || !toggle(n.Role) || len(n.Children) > 0 {
			continue
		}
		w := &nodes[n.Parent]
		if w.RawRef == "" || w.Role != "generic" || w.Name != "" || w.ViaLabel || !onlyTextBeside(nodes, w.Children, i) {
			continue
		}
		n.RawRef, n.Ref, n.Frame, n.Box, n.ViaLabel = w.RawRef, w.Ref, w.Frame, w.Box, true
		p.o.byRef[n.RawRef] = i
		w.RawRef, w.Ref = "", ""
	}
}

// toggle roles are the native inputs a styled label stands in for.
func toggle(role string) bool { return role == "checkbox" || role == "radio" || role == "switch" }

// onlyTextBeside reports whether every one of children but self is a text node.
func onlyTextBeside(nodes []Node, children []int, self int) bool {
	for _, c := range children {
		if c != self && (nodes[c].Role != "text" || nodes[c].RawRef != "") {
			return false
		}
	}
	return true
}
