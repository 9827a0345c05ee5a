package observe

import (
	"fmt"
	"regexp"
	"strings"
)

// A target named with its container (issue 52.4): one "Salva" per row is told apart by the row it
// sits in. The container of one of several elements of the same role and name (twins) is its record:
// the highest ancestor that holds it and no twin (recordHeight, as SameInstance finds it), read as its
// name, else all the names and texts inside it ("Pratica 8 Salva"). A lone element's container is any
// ancestor whose reading holds within.

// withinPattern matches within as whole words, case folded, any run of spaces alike: "Pratica 8"
// is in "Pratica 8 Salva", not in "Pratica 18 Salva".
func withinPattern(within string) (*regexp.Regexp, error) {
	words := strings.Fields(within)
	if len(words) == 0 {
		return nil, fmt.Errorf("within is empty")
	}
	for i, w := range words {
		words[i] = regexp.QuoteMeta(w)
	}
	return regexp.Compile(`(?i)(^|[^\pL\pN])` + strings.Join(words, `\s+`) + `($|[^\pL\pN])`)
}

// reading is the node at i as a person reads it: its name, else every name and text inside it.
func (o *Observation) reading(i int) string {
	if n := o.Nodes[i]; strings.TrimSpace(n.Name) != "" {
		return n.Name
	}
	var parts []string
	start, end := o.subtree(i)
	for _, n := range o.Nodes[start+1 : end] {
		for _, s := range []string{n.Name, n.Text} {
			if s = strings.TrimSpace(s); s != "" {
				parts = append(parts, s)
			}
		}
	}
	return strings.Join(parts, " ")
}

// sameTarget lists the elements of n's role and name (a link: and URL), n included.
func (o *Observation) sameTarget(n Node) []int {
	var out []int
	for j, m := range o.Nodes {
		if m.RawRef != "" && m.Role == n.Role && m.Name == n.Name && (n.Role != "link" || m.URL == n.URL) {
			out = append(out, j)
		}
	}
	return out
}

// inContainer reports whether the node at i sits in a container whose reading matches within: its
// record among twins, or, alone, any ancestor.
func (o *Observation) inContainer(i int, twins []int, within *regexp.Regexp) bool {
	if len(twins) > 1 {
		k := o.recordHeight(i, twins)
		rec, ok := o.ancestor(i, k)
		return k > 0 && ok && within.MatchString(o.reading(rec))
	}
	for p := o.Nodes[i].Parent; p >= 0; p = o.Nodes[p].Parent {
		if within.MatchString(o.reading(p)) {
			return true
		}
	}
	return false
}

// FindWithin is Find for a role and name that several elements share, told apart by their container
// (a row, a list item, a section): the one element whose container's reading holds within as whole
// words. None is ErrNotFound; several is ErrAmbiguousTarget: the container must be as exact as a name.
func (o *Observation) FindWithin(role, name, within string) (Node, error) {
	pat, err := withinPattern(within)
	if err != nil {
		return Node{}, newError(ErrNotFound, "", err.Error())
	}
	twins := o.sameTarget(Node{Role: role, Name: name})
	var found []int
	for _, i := range twins {
		if o.inContainer(i, twins, pat) {
			found = append(found, i)
		}
	}
	target := fmt.Sprintf("%s %q within %q", role, name, within)
	switch len(found) {
	case 0:
		return Node{}, newError(ErrNotFound, "", "no element "+target)
	case 1:
		return o.Nodes[found[0]], nil
	}
	var refs []string
	for _, i := range found {
		refs = append(refs, o.Nodes[i].Ref)
	}
	return Node{}, newError(ErrAmbiguousTarget, "", fmt.Sprintf("%d elements %s: %s", len(found), target, strings.Join(refs, ", ")))
}

// UniqueWithin is Unique for a target named with its container: n must sit in a container whose
// reading holds within, and no other element of its role and name may. Without within it is Unique.
func (o *Observation) UniqueWithin(n Node, within string) error {
	if within == "" {
		return o.Unique(n)
	}
	pat, err := withinPattern(within)
	if err != nil {
		return newError(ErrAmbiguousTarget, n.Ref, err.Error())
	}
	i := o.indexOfRaw(n.RawRef)
	if i < 0 {
		return newError(ErrStaleRef, n.Ref, "the element is not in the observation")
	}
	twins := o.sameTarget(n)
	if !o.inContainer(i, twins, pat) {
		return newError(ErrStaleRef, n.Ref, fmt.Sprintf("%s %q is not within %q on the page now", n.Role, n.Name, within))
	}
	var others []string
	for _, j := range twins {
		if j != i && o.inContainer(j, twins, pat) {
			others = append(others, o.Nodes[j].Ref)
		}
	}
	if len(others) > 0 {
		return newError(ErrAmbiguousTarget, n.Ref, fmt.Sprintf("%d elements %s %q within %q (also %s): name a container the page tells apart",
			len(others)+1, n.Role, n.Name, within, strings.Join(others, ", ")))
	}
	return nil
}
