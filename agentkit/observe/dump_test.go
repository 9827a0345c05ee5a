package observe

import (
	"fmt"
	"maps"
	"slices"
	"strings"
)

// dump renders every field of every node, one node per line, for golden
// files. Strings are Go-quoted so invisible characters show as escapes.
func dump(o *Observation) string {
	var b strings.Builder
	fmt.Fprintf(&b, "snapshot=%s url=%q complete=%v nodes=%d elements=%d\n", o.SnapshotID, o.URL, o.Complete, len(o.Nodes), len(o.Elements()))
	for _, w := range o.Warnings {
		fmt.Fprintf(&b, "warning: %s\n", w)
	}
	for i, n := range o.Nodes {
		fmt.Fprintf(&b, "%s%d L%d %s", strings.Repeat("  ", n.Depth), i, n.Line, n.Role)
		if n.Name != "" {
			fmt.Fprintf(&b, " name=%+q", n.Name)
		}
		if n.Ref != "" {
			fmt.Fprintf(&b, " ref=%s", n.Ref)
		}
		if n.Frame != "" {
			fmt.Fprintf(&b, " frame=%s", n.Frame)
		}
		if n.Text != "" {
			fmt.Fprintf(&b, " text=%+q", n.Text)
		}
		if n.URL != "" {
			fmt.Fprintf(&b, " url=%q", n.URL)
		}
		if n.RawURL != n.URL {
			fmt.Fprintf(&b, " rawurl=%q", n.RawURL)
		}
		if n.Placeholder != "" {
			fmt.Fprintf(&b, " placeholder=%+q", n.Placeholder)
		}
		if n.Level != 0 {
			fmt.Fprintf(&b, " level=%d", n.Level)
		}
		for _, k := range sortedKeys(n.States) {
			fmt.Fprintf(&b, " [%s=%s]", k, n.States[k])
		}
		for _, k := range sortedKeys(n.Props) {
			fmt.Fprintf(&b, " /%s=%+q", k, n.Props[k])
		}
		fmt.Fprintf(&b, " parent=%d children=%v\n", n.Parent, n.Children)
	}
	return b.String()
}

func sortedKeys(m map[string]string) []string {
	keys := slices.Sorted(maps.Keys(m))
	return keys
}
