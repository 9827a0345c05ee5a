package observe

import (
	"fmt"
	"strings"
)

// SameInstance checks that n, an element of before, is still the same instance of a repeated control
// in after, where the same raw ref names m (the caller has found m by n's ref and checked its role
// and name). It is the check for a control that has twins (other elements of its role and name, and
// for a link its URL) whose name gives a planner nothing to choose by (an icon-only "×" in every row):
// each instance is a target of its own, named by its ref.
//
// A ref names one element, and Playwright keeps it on that element from one snapshot to the next;
// what it cannot say is which record the element stands for once the page re-renders in place (a
// list re-rendered by position keeps its "×" buttons and gives them other rows). So an instance is
// also known by its record: the largest node enclosing it that holds no twin of it (the row, the list
// item), with everything the record shows (roles, names, texts, URLs; no refs, no states). The check
// holds when the record shows in after what it showed in before; when the record does not set the
// instance apart from its twins (two rows that read the same, or no enclosing node of its own), the
// instance's rank among its twins in document order must be unchanged too. An element with no twin
// in either observation passes. Anything else is ErrStaleRef: a different record may be under the
// ref, and the page must be observed again, never guessed.
func SameInstance(before *Observation, n Node, after *Observation, m Node) error {
	bi, ai := before.indexOfRaw(n.RawRef), after.indexOfRaw(m.RawRef)
	if bi < 0 || ai < 0 {
		return newError(ErrStaleRef, n.Ref, "the element is not in both observations")
	}
	bt, at := before.twinsOf(bi), after.twinsOf(ai)
	if len(bt) < 2 && len(at) < 2 {
		return nil
	}
	// The record's height above the element, from the observation that has the twins (before's
	// first: the record the planner saw).
	k := before.recordHeight(bi, bt)
	if len(bt) < 2 {
		k = after.recordHeight(ai, at)
	}
	br, ok := before.ancestor(bi, k)
	if !ok {
		return newError(ErrStaleRef, n.Ref, "its record is not in the snapshot")
	}
	ar, ok := after.ancestor(ai, k)
	if !ok {
		return newError(ErrStaleRef, n.Ref, fmt.Sprintf("it is no longer inside a %s: the page moved it; observe again", before.Nodes[br].Role))
	}
	bs, as := before.signature(br), after.signature(ar)
	if bs != as {
		return newError(ErrStaleRef, n.Ref, fmt.Sprintf("one of %d %s %q: its %s showed %q and now shows %q, so it may stand for another record; observe again",
			max(len(bt), len(at)), n.Role, n.Name, before.Nodes[br].Role, before.gist(br), after.gist(ar)))
	}
	if before.setsApart(br, bs, bt, bi, k) && after.setsApart(ar, as, at, ai, k) {
		return nil
	}
	if rb, ra := rank(bt, bi), rank(at, ai); rb != ra || len(bt) != len(at) {
		return newError(ErrStaleRef, n.Ref, fmt.Sprintf("its %s reads like another instance's, and it was instance %d of %d %s %q and is now %d of %d; observe again",
			before.Nodes[br].Role, rb+1, len(bt), n.Role, n.Name, ra+1, len(at)))
	}
	return nil
}

// indexOfRaw is the index in o.Nodes of the node with raw ref raw, or -1.
func (o *Observation) indexOfRaw(raw string) int {
	if raw == "" {
		return -1
	}
	if o.byRef != nil {
		if i, ok := o.byRef[raw]; ok {
			return i
		}
		return -1
	}
	for i := range o.Nodes {
		if o.Nodes[i].RawRef == raw {
			return i
		}
	}
	return -1
}

// twinsOf lists, in document order, the indices of the elements (nodes with a ref) with the role
// and name of the node at i, and for a link its URL; i included.
func (o *Observation) twinsOf(i int) []int {
	n := o.Nodes[i]
	var out []int
	for j, m := range o.Nodes {
		if m.RawRef == "" || m.Role != n.Role || m.Name != n.Name || (n.Role == "link" && m.URL != n.URL) {
			continue
		}
		out = append(out, j)
	}
	return out
}

// chain is the path from the top of the tree to the node at i, i included.
func (o *Observation) chain(i int) []int {
	var up []int
	for j := i; j >= 0 && j < len(o.Nodes) && len(up) <= len(o.Nodes); j = o.Nodes[j].Parent {
		up = append(up, j)
	}
	for l, r := 0, len(up)-1; l < r; l, r = l+1, r-1 {
		up[l], up[r] = up[r], up[l]
	}
	return up
}

// recordHeight is how many levels above the node at i its record is: the largest ancestor that
// holds none of twins but i (0: the node itself, when a twin is its sibling or nothing encloses it
// alone).
func (o *Observation) recordHeight(i int, twins []int) int {
	c := o.chain(i)
	shared := 0 // the longest path from the top that i shares with a twin
	for _, j := range twins {
		if j == i {
			continue
		}
		d, k := o.chain(j), 0
		for k < len(c) && k < len(d) && c[k] == d[k] {
			k++
		}
		shared = max(shared, k)
	}
	if shared >= len(c) { // i encloses a twin: nothing holds it alone
		return 0
	}
	return len(c) - 1 - shared
}

// ancestor is the node k levels above the node at i (k 0: i itself).
func (o *Observation) ancestor(i, k int) (int, bool) {
	for ; k > 0; k-- {
		i = o.Nodes[i].Parent
		if i < 0 || i >= len(o.Nodes) {
			return -1, false
		}
	}
	return i, true
}

// signature is what the subtree of the node at i shows: each node's depth below it, role, name,
// text, URL and placeholder, without refs or states (a ref is no part of what the record is, and a
// state such as a checked box is the record's, not another's).
func (o *Observation) signature(i int) string {
	var b strings.Builder
	start, end := o.subtree(i)
	base := o.Nodes[i].Depth
	for _, n := range o.Nodes[start:end] {
		fmt.Fprintf(&b, "%d\x1f%s\x1f%s\x1f%s\x1f%s\x1f%s\x1e", n.Depth-base, n.Role, n.Name, n.Text, n.RawURL, n.Placeholder)
	}
	return b.String()
}

// gist is a short human reading of the node at i, for messages: its reading (within.go), cut.
func (o *Observation) gist(i int) string {
	g := o.reading(i)
	if r := []rune(g); len(r) > 60 {
		g = string(r[:60]) + "…"
	}
	return g
}

// setsApart reports whether rec, the record (signature sig) of the twin at i, is neither the twin
// itself nor reads like the record, as many levels up, of another twin.
func (o *Observation) setsApart(rec int, sig string, twins []int, i, k int) bool {
	if rec == i {
		return false
	}
	for _, j := range twins {
		if j == i {
			continue
		}
		if r, ok := o.ancestor(j, k); ok && (r == rec || o.signature(r) == sig) {
			return false
		}
	}
	return true
}

// rank is the position of i in twins.
func rank(twins []int, i int) int {
	for r, j := range twins {
		if j == i {
			return r
		}
	}
	return -1
}
