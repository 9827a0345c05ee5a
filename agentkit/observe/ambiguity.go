package observe

import (
	"fmt"
	"strings"
)

// Unique checks that no other element of o has n's role and accessible name (for a link: and its
// URL, which the policy judges), as the seeds' `el.count() != 1` does. A ref names one element, but
// a planner that chose "Salva" among two "Salva" rows may have chosen the wrong row: the action is
// refused with ErrAmbiguousTarget rather than guessed. Unnamed elements are left to the policy (its
// unnamed rule refuses them) and always pass.
func (o *Observation) Unique(n Node) error {
	if n.Name == "" {
		return nil
	}
	var twins []string
	for _, m := range o.Nodes {
		if m.RawRef == "" || m.RawRef == n.RawRef || m.Role != n.Role || m.Name != n.Name {
			continue
		}
		if n.Role == "link" && m.URL != n.URL {
			continue
		}
		twins = append(twins, m.Ref)
	}
	if len(twins) == 0 {
		return nil
	}
	return newError(ErrAmbiguousTarget, n.Ref, fmt.Sprintf("%d elements %s %q on the page (also %s): target one the page tells apart",
		len(twins)+1, n.Role, n.Name, strings.Join(twins, ", ")))
}
