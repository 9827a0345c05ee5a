package specs

import (
	. "github.com/onsi/ginkgo/v2"
	"github.com/onsi/ginkgo/v2/types"
)

// catalogContainer is the text of the Describe that holds both arms of every catalog trap
// (traps_test.go); its child Describe is the trap's ID.
const catalogContainer = "the trap catalog"

// selectedTraps returns the IDs of the catalog traps that run r selected: those with at least one
// catalog spec (guarded or control arm) that was neither skipped nor pending. A label filter, focus or
// skip that selects only a trap's guarded arm still selects the trap, so its missing control arm is
// reported rather than silently unchecked.
func selectedTraps(r Report) map[string]bool {
	selected := map[string]bool{}
	for _, sr := range r.SpecReports {
		if sr.LeafNodeType != types.NodeTypeIt || len(sr.ContainerHierarchyTexts) < 2 || sr.ContainerHierarchyTexts[0] != catalogContainer {
			continue
		}
		if sr.State == types.SpecStateSkipped || sr.State == types.SpecStatePending {
			continue
		}
		selected[sr.ContainerHierarchyTexts[1]] = true
	}
	return selected
}
