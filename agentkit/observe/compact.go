package observe

import (
	"fmt"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// CompactOptions chooses what Compact shows.
type CompactOptions struct {
	// MaxElements caps the element lines; 0 means no cap. When the cap cuts,
	// the result is marked incomplete and says how many were left out.
	MaxElements int
	// Region is the qualified ref of a subtree to drill into; "" is the
	// whole page.
	Region string
	// IncludeText adds lines for nodes without a ref that carry text: text
	// nodes, options of a native select, and the like.
	IncludeText bool
	// MaxTextRunes shortens long inline texts to this many runes, marking the
	// cut with "…(+N runes)"; 0 means no limit. Names are never shortened.
	MaxTextRunes int
}

// Compacted is a token-cheap, line-oriented view of an observation.
type Compacted struct {
	// Text has one line per element, e.g.
	//
	//	s3f9k2:e8 button "Salva"
	//	s3f9k2:e13 link "Guida" -> https://staging.test/guida
	//	s3f9k2:e12 button "Elimina" [disabled]
	//	s3f9k2:e45 button: "AriaHidden button"
	//	s3f9k2:e50 button "Elimina" [covered]
	//
	// and, with IncludeText, indented lines for text without a ref such as
	// `  text: "Email"`. A cut view ends with
	// "… N more elements not shown (truncated)"; a view of an incomplete
	// snapshot ends with a line starting "! snapshot incomplete".
	Text string
	// Kept is the number of element lines in Text.
	Kept int
	// Total is the number of elements the view would show without a cap.
	Total int
	// Complete is false when the cap cut the view or the observation itself
	// is incomplete.
	Complete bool
}

// structural reports whether role is a container whose ref carries no
// information of its own when it has no name, text or URL; Compact leaves
// such containers out and lists what is inside them.
func structural(role string) bool {
	switch role {
	case "generic", "group", "none", "presentation",
		"list", "listitem", "table", "rowgroup", "row", "cell",
		"paragraph", "main", "navigation", "banner", "contentinfo",
		"complementary", "region", "form", "article", "section",
		"document", "caption", "blockquote":
		return true
	}
	return false
}

// listed reports whether Compact shows n as an element line.
func listed(n *Node) bool {
	if n.RawRef == "" {
		return false
	}
	return !structural(n.Role) || n.Name != "" || n.Text != "" || n.URL != "" || n.Placeholder != ""
}

// textual reports whether Compact with IncludeText shows n as a text line.
func textual(n *Node) bool {
	return n.RawRef == "" && (n.Name != "" || n.Text != "" || n.URL != "" || n.Placeholder != "")
}

// Compact renders the observation, or the Region subtree of it, as one line
// per element for a planner. Elements are nodes with a ref, except unnamed,
// textless containers (generic, row, cell, paragraph, ...), whose children
// are listed instead. Compact fails only when Region is given and Lookup
// would fail on it.
func (o *Observation) Compact(opts CompactOptions) (Compacted, error) {
	start, end := 0, len(o.Nodes)
	if opts.Region != "" {
		i, err := o.index(opts.Region)
		if err != nil {
			return Compacted{}, err
		}
		start, end = o.subtree(i)
	}
	total := 0
	for i := start; i < end; i++ {
		if listed(&o.Nodes[i]) {
			total++
		}
	}
	origin := originOf(o.URL)
	var b strings.Builder
	lines := total
	if opts.MaxElements > 0 && opts.MaxElements < lines {
		lines = opts.MaxElements
	}
	b.Grow((lines + 1) * 48)
	kept, hiddenText := 0, 0
	capped := false
	for i := start; i < end; i++ {
		n := &o.Nodes[i]
		switch {
		case listed(n):
			if opts.MaxElements > 0 && kept >= opts.MaxElements {
				capped = true
				continue
			}
			b.WriteString(n.Ref)
			b.WriteByte(' ')
			writeNode(&b, n, origin, opts.MaxTextRunes)
			kept++
		case opts.IncludeText && textual(n):
			if capped {
				hiddenText++
				continue
			}
			b.WriteString("  ")
			writeNode(&b, n, origin, opts.MaxTextRunes)
		default:
			continue
		}
		b.WriteByte('\n')
	}
	if capped {
		fmt.Fprintf(&b, "… %d more elements", total-kept)
		if hiddenText > 0 {
			fmt.Fprintf(&b, " and %d text lines", hiddenText)
		}
		b.WriteString(" not shown (truncated)\n")
	}
	if !o.Complete {
		fmt.Fprintf(&b, "! snapshot incomplete: %d problems while reading it; some elements may be missing\n", len(o.Warnings))
	}
	return Compacted{Text: b.String(), Kept: kept, Total: total, Complete: o.Complete && !capped}, nil
}

// writeNode writes `role "name" [state]...: "text" -> url placeholder="p"`. A link to the page's own
// origin is written as its path (the origin is the observation's URL); a link anywhere else keeps its
// full URL, so a planner and a reviewer see at a glance that it leaves the site.
func writeNode(b *strings.Builder, n *Node, origin string, maxText int) {
	if n.Role == "text" {
		b.WriteString("text")
	} else {
		b.WriteString(n.Role)
		if n.Name != "" {
			b.WriteByte(' ')
			quote(b, n.Name)
		}
		writeStates(b, n)
		if n.CoveredBy != "" {
			b.WriteString(" [covered]") // something lies on top of it: no target until that is closed
		}
	}
	if n.Text != "" {
		b.WriteString(": ")
		writeText(b, n.Text, maxText)
	}
	if n.URL != "" {
		b.WriteString(" -> ")
		b.WriteString(relativeTo(origin, n.URL))
	}
	if n.Placeholder != "" {
		b.WriteString(" placeholder=")
		quote(b, n.Placeholder)
	}
}

// writeStates writes the states in a stable order, leaving out what a
// planner does not need: the level (already in the heading) is kept, the
// pointer cursor is dropped on links and buttons where it is implied.
func writeStates(b *strings.Builder, n *Node) {
	if len(n.States) == 0 {
		return
	}
	keys := make([]string, 0, len(n.States))
	for k := range n.States {
		if k == "cursor" && (n.Role == "link" || n.Role == "button") {
			continue
		}
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		b.WriteString(" [")
		b.WriteString(k)
		if v := n.States[k]; v != "true" {
			b.WriteByte('=')
			b.WriteString(v)
		}
		b.WriteByte(']')
	}
}

// writeText quotes s, cut to maxText runes (0 = no limit) with a marker
// that says how much was cut.
func writeText(b *strings.Builder, s string, maxText int) {
	if maxText <= 0 || utf8.RuneCountInString(s) <= maxText {
		quote(b, s)
		return
	}
	cut, runes := 0, 0
	for cut < len(s) && runes < maxText {
		_, size := utf8.DecodeRuneInString(s[cut:])
		cut += size
		runes++
	}
	quote(b, s[:cut])
	b.WriteString("…(+")
	b.WriteString(strconv.Itoa(utf8.RuneCountInString(s[cut:])))
	b.WriteString(" runes)")
}

// originOf returns "scheme://host[:port]" of an absolute URL, or "" when it has none.
func originOf(u string) string {
	p, err := url.Parse(u)
	if err != nil || p.Scheme == "" || p.Host == "" {
		return ""
	}
	return p.Scheme + "://" + p.Host
}

// relativeTo writes u as a path when it is on origin (and the path starts with "/"), else unchanged.
func relativeTo(origin, u string) string {
	if origin == "" || !strings.HasPrefix(u, origin) {
		return u
	}
	rest := u[len(origin):]
	if rest == "" {
		return "/"
	}
	if rest[0] != '/' {
		return u // e.g. origin "http://a.test" and u "http://a.test.evil/": another host
	}
	return rest
}
