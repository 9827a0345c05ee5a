package observe

import (
	"fmt"
	"strings"
)

// Node is one item of the snapshot tree: a role line such as
// `- button "Salva" [ref=e8]` or a text line such as `- text: Email`.
// Property lines (`- /url: ...`, `- /placeholder: ...`) are not nodes; they
// fill URL, Placeholder or Props of the node they belong to.
//
// Strings are kept verbatim after unquoting: zero-width characters,
// fullwidth letters and bidi controls are preserved (normalisation is the
// caller's job). Treat a Node, its maps and slices as read-only.
type Node struct {
	// Ref is the qualified ref "snapshotid:e8"; "" when the node has no ref.
	Ref string
	// RawRef is the ref as Playwright printed it ("e8", "f1e2"); "" when none.
	RawRef string
	// Role is the ARIA role ("button", "link", "generic", ...), or "text"
	// for a `- text: ...` line.
	Role string
	// Name is the accessible name (the quoted part), unescaped, as a person can type it: icon-font
	// glyphs dropped (TypableName); "" when absent.
	Name string
	// RawName is the accessible name as the snapshot printed it, icon-font glyphs included: what the
	// evidence records. Equal to Name when the name has no such glyph.
	RawName string
	// Text is the inline text after the colon (`- paragraph [ref=e13]: idle`
	// gives "idle"), or the text of a "text" node.
	Text string
	// URL is the `- /url:` property resolved against the page URL. It is the
	// raw value when it cannot be resolved; RawURL always keeps the raw value.
	URL string
	// RawURL is the `- /url:` property as printed.
	RawURL string
	// Placeholder is the `- /placeholder:` property.
	Placeholder string
	// Props holds any other `- /key: value` property lines, keyed without the
	// slash; nil when there are none.
	Props map[string]string
	// Level is the heading level from [level=N]; 0 when absent.
	Level int
	// States holds the bracketed attributes other than ref: "checked" →
	// "true" or "mixed", "disabled" → "true", "level" → "2", "cursor" →
	// "pointer", and so on. nil when there are none.
	States map[string]string
	// Depth is the indentation level; top-level items have depth 0.
	Depth int
	// Frame is the frame prefix of the node's ref ("f1" for "f1e2"); "" for
	// refs without one. Nodes without a ref take the frame of the content
	// they sit in (an iframe's children take the iframe's inner frame).
	// After a navigation Playwright may prefix main-frame refs too.
	Frame string
	// Parent is the index in Observation.Nodes of the enclosing node, -1 for
	// top-level nodes.
	Parent int
	// Children are the indices in Observation.Nodes of the direct children,
	// in document order.
	Children []int
	// Line is the 1-based line of Observation.Raw the node was read from.
	Line int
	// Box is the element's bounding box as the snapshot printed it (`[box=x,y,width,height]`, CSS
	// pixels relative to its frame's viewport, rounded): x, y, width, height; all zero when none was
	// printed. Where the element is, for the browser edge's test of what is on top; no part of what
	// the page says (Hash leaves it out).
	Box [4]int
	// CoveredBy says what lies on top of the element at its centre (an overlay, a side panel, a modal's
	// backdrop, as "aside.panel"), as the browser edge's hit test found it right after the snapshot: a
	// click there would land on that one, so a covered element is no target until what covers it is
	// closed. "" when nothing does or it could not be told (an element out of the viewport or in an
	// iframe is tested when it is acted on).
	CoveredBy string
	// ViaLabel is true when the node is a visually hidden native toggle (a 0×0 checkbox under a styled
	// label, which the snapshot shows without a ref) reached through the element around it (a label,
	// or a field's wrapper holding one): its ref and box are that element's, and the browser edge
	// clicks the input's visible label.
	ViaLabel bool
}

// HasRef reports whether the node has a ref and so can be acted on.
func (n Node) HasRef() bool { return n.RawRef != "" }

// Observation is one parsed AI-mode aria snapshot of a page. Refs in it are
// qualified by SnapshotID, so a ref from an older observation cannot be
// mistaken for one of this page state.
type Observation struct {
	// SnapshotID qualifies every ref in this observation.
	SnapshotID string
	// URL is the page URL the snapshot was taken at.
	URL string
	// Nodes are all nodes in document order.
	Nodes []Node
	// Complete is false when the parser met a line it could not read, or
	// another defect (such as a duplicated ref) that makes the tree
	// untrustworthy. Warnings says what.
	Complete bool
	// Warnings lists every defect found, one sentence each, with its line.
	Warnings []string
	// SecretFields is the number of visible password inputs on the page, as the browser edge counted
	// them in the DOM (the aria snapshot shows a password input as a plain textbox). -1 means the
	// count could not be taken: unknown, not zero.
	SecretFields int
	// CodeBoxes is the number of visible one-character text inputs (maxlength 1) on the page and
	// CodeInputs the number of visible inputs marked autocomplete="one-time-code", as the browser edge
	// counted them in the DOM (the aria snapshot shows neither): a code split into boxes is a one-time
	// code prompt without a word next to it. 0 when not counted.
	CodeBoxes, CodeInputs int
	// Raw is the snapshot text as given.
	Raw string

	byRef map[string]int // raw ref → index in Nodes; built by Parse
}

// Elements returns the nodes that have a ref (the ones an agent can act on),
// in document order.
func (o *Observation) Elements() []Node {
	out := make([]Node, 0, len(o.byRef))
	for _, n := range o.Nodes {
		if n.RawRef != "" {
			out = append(out, n)
		}
	}
	return out
}

// Lookup returns the node a qualified ref names. It fails with ErrBareRef
// for a ref without snapshot id, ErrMalformedRef for other garbage,
// ErrStaleRef for a ref of another snapshot and ErrUnknownRef for a ref this
// snapshot does not have.
func (o *Observation) Lookup(qref string) (Node, error) {
	i, err := o.index(qref)
	if err != nil {
		return Node{}, err
	}
	return o.Nodes[i], nil
}

// index resolves a qualified ref to an index in o.Nodes.
func (o *Observation) index(qref string) (int, error) {
	id, raw, err := SplitRef(qref)
	if err != nil {
		return -1, err
	}
	if id != o.SnapshotID {
		return -1, newError(ErrStaleRef, qref, fmt.Sprintf("ref is from snapshot %s, the current snapshot is %s; observe again", id, o.SnapshotID))
	}
	if o.byRef != nil {
		if i, ok := o.byRef[raw]; ok {
			return i, nil
		}
	} else {
		for i := range o.Nodes {
			if o.Nodes[i].RawRef == raw {
				return i, nil
			}
		}
	}
	return -1, newError(ErrUnknownRef, qref, "no element with this ref in snapshot "+o.SnapshotID)
}

// Find returns the one element (a node with a ref) whose role and name are
// exactly role and name, compared byte for byte once icon-font glyphs are
// dropped from name (TypableName, as from the nodes' names: a step may say
// `button "aperta"` for a button the page names "aperta \ueb99"). It fails
// with ErrNotFound when none matches and ErrAmbiguousTarget when several do;
// the message of the latter lists the candidates' refs.
func (o *Observation) Find(role, name string) (Node, error) {
	name = TypableName(name)
	found := -1
	var others []string
	for i := range o.Nodes {
		n := &o.Nodes[i]
		if n.RawRef == "" || n.Role != role || n.Name != name {
			continue
		}
		if found < 0 {
			found = i
			continue
		}
		others = append(others, n.Ref)
	}
	target := fmt.Sprintf("%s %q", role, name)
	switch {
	case found < 0:
		return Node{}, newError(ErrNotFound, "", "no element "+target)
	case len(others) > 0:
		refs := append([]string{o.Nodes[found].Ref}, others...)
		return Node{}, newError(ErrAmbiguousTarget, "", fmt.Sprintf("%d elements %s: %s", len(refs), target, strings.Join(refs, ", ")))
	}
	return o.Nodes[found], nil
}

// subtree returns the half-open index range [start, end) of the node at i
// and all its descendants.
func (o *Observation) subtree(i int) (start, end int) {
	d := o.Nodes[i].Depth
	end = i + 1
	for end < len(o.Nodes) && o.Nodes[end].Depth > d {
		end++
	}
	return i, end
}
