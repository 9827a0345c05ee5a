package observe

// TextLines returns the text a reader of the page sees, in document order:
// for every node its name, its inline text (when it differs from the name)
// and its placeholder. Planners that follow instructions printed on the
// page read these; so do injected instructions, which is why they are kept
// verbatim.
func (o *Observation) TextLines() []string {
	out := make([]string, 0, len(o.Nodes))
	for i := range o.Nodes {
		n := &o.Nodes[i]
		if n.Name != "" {
			out = append(out, n.Name)
		}
		if n.Text != "" && n.Text != n.Name {
			out = append(out, n.Text)
		}
		if n.Placeholder != "" {
			out = append(out, n.Placeholder)
		}
	}
	return out
}
