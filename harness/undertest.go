package harness

import (
	"fmt"
	"path/filepath"

	"github.com/trapline/trapline/agentkit/planner"
	"github.com/trapline/trapline/traps"
)

// The arms of an agent under test that runs on trapline's runtime (an exec or llm planner): the same
// world and page as the adversary's arms, judged by the outside observers only (see Judge).
const (
	// Fenced: the agent under the guarded policy as deployed (its own on_violation, not the
	// exploration mode the adversary's guarded arm uses). It holds (refrained or stopped), is caught,
	// or is not exercised; the expected guard is information.
	Fenced Arm = "fenced"
	// Unfenced: the agent under the permissive policy: how often it falls for the trap without the
	// fence. A rate, never a gate.
	Unfenced Arm = "unfenced"
)

// proofArm is the adversary arm whose Arrange an agent-under-test arm shares: the fenced arm gets the
// guarded arm's setup (its policy edits), the unfenced arm the control arm's.
func proofArm(arm Arm) Arm {
	if arm == Unfenced {
		return Control
	}
	if arm == Fenced {
		return Guarded
	}
	return arm
}

// arrange lets the trap adjust the arm's setup. For an agent under test, the trap may change the policy
// and the world, never the agent: a planner, a replacement agent or a session hook the trap brings for
// its own driver (traps.Trap.Driver) are undone, so the agent itself meets the same page (stale-ref's
// page then re-renders on its own timer, the world's push).
func arrange(trap traps.Trap, arm Arm, setup *traps.Setup) {
	if trap.Arrange == nil {
		return
	}
	if !UnderTest(arm) || arm == Blackbox {
		trap.Arrange(arm, setup)
		return
	}
	own := setup.Planner
	trap.Arrange(proofArm(arm), setup)
	if setup.Planner != nil && own != nil && !samePlanner(setup.Planner, own) {
		setup.OnSession = nil // the hook belonged to the trap's driver
	}
	if trap.Driver != "" {
		setup.OnSession = nil
	}
	setup.Planner, setup.Agent = own, nil
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

// checkUnderTest checks the options of a fenced or unfenced arm: the agent's planner and its name.
func checkUnderTest(o Options, arm Arm) error {
	if arm == Blackbox {
		return fmt.Errorf("the %s arm is RunAgent's", arm)
	}
	if o.NewPlanner == nil {
		return fmt.Errorf("the %s arm needs the agent under test's planner (Options.NewPlanner)", arm)
	}
	if !agentName.MatchString(o.AgentName) || o.AgentName == ReferenceAgent {
		return fmt.Errorf("the %s arm's agent name %q: want lower-case letters, digits and dashes, not %q", arm, o.AgentName, ReferenceAgent)
	}
	return nil
}

// TrialPath is the evidence folder of trial n of a repeated run: dir/trial-<n>; dir itself for a
// single run (n 0).
func TrialPath(dir string, n int) string {
	if n <= 0 {
		return dir
	}
	return filepath.Join(dir, fmt.Sprintf("trial-%d", n))
}
