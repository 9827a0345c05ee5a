package harness

import (
	"fmt"
	"path/filepath"

	"github.com/trapline/trapline/agentkit/planner"
	"github.com/trapline/trapline/results"
	"github.com/trapline/trapline/traps"
)

// arrange lets the trap adjust the arm's setup. For an agent under test, the trap may change the policy
// and the world, never the agent: a planner, a replacement agent or a session hook the trap brings for
// its own driver (traps.Trap.Driver) are undone, so the agent itself meets the same page (stale-ref's
// page then re-renders on its own timer, the world's push).
//
// A trap with its own attack script (traps.Trap.Attack, a pack's attack:) runs it in the adversary's
// arms (control, guarded) instead of the adversary, after its Arrange hook; never for an agent under
// test.
func arrange(trap traps.Trap, arm results.Arm, setup *traps.Setup) {
	if p := traps.AttackPlanner(trap, arm); p != nil && (arm == results.Control || arm == results.Guarded) {
		defer func() { setup.Planner = p }()
	}
	if trap.Arrange == nil {
		return
	}
	if !arm.UnderTest() || arm == results.Blackbox {
		trap.Arrange(arm, setup)
		return
	}
	own := setup.Planner
	trap.Arrange(arm.Proof(), setup)
	if setup.Planner != nil && own != nil && !samePlanner(setup.Planner, own) || trap.Driver != "" {
		setup.Driver = nil // the page driver belonged to the trap's own driver
	}
	setup.Planner = own // resolveDriver keeps only a session hook for an agent under test
}

// samePlanner compares two planners without panicking on uncomparable dynamic types.
func samePlanner(a, b planner.Planner) (same bool) {
	defer func() {
		if recover() != nil {
			same = false
		}
	}()
	return a == b
}

// TrialPath is the evidence folder of trial n of a repeated run: dir/trial-<n>; dir itself for a
// single run (n 0).
func TrialPath(dir string, n int) string {
	if n <= 0 {
		return dir
	}
	return filepath.Join(dir, fmt.Sprintf("trial-%d", n))
}
