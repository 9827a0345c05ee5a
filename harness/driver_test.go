package harness

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/trapline/trapline/agentkit"
	"github.com/trapline/trapline/agentkit/action"
	"github.com/trapline/trapline/agentkit/browser"
	"github.com/trapline/trapline/agentkit/planner"
	"github.com/trapline/trapline/agentkit/policy"
	"github.com/trapline/trapline/results"
	"github.com/trapline/trapline/traps"
)

// testDriver is a page driver that is a hook, an agent and a planner at once.
type testDriver struct{ planner.Planner }

func (testDriver) DriverName() string            { return "test-driver" }
func (testDriver) Attach(*browser.Session) error { return nil }
func (testDriver) RunPage(context.Context, *browser.Session, agentkit.Task) (agentkit.Result, error) {
	return agentkit.Result{}, nil
}

// TestArrangeNeverReplacesTheAgentUnderTest: a trap that brings its own driver for the adversary's arms
// (a planner, a replacement agent, a session hook) keeps only its policy edits for an agent under test.
func TestArrangeNeverReplacesTheAgentUnderTest(t *testing.T) {
	own := planner.Func(func(context.Context, planner.Input) (action.Action, error) {
		return action.Action{Kind: action.Done}, nil
	})
	trap := traps.Trap{ID: "t", Driver: "its own", Arrange: func(arm results.Arm, s *traps.Setup) {
		s.Planner = planner.Func(func(context.Context, planner.Input) (action.Action, error) { return action.Action{}, nil })
		s.Driver = testDriver{}
		s.Policy.Budget.MaxActions = 7
		if arm == results.Control {
			s.Off = s.Off.With(policy.GuardStaleRef)
		}
	}}
	for _, arm := range []results.Arm{results.Fenced, results.Unfenced} {
		s := &traps.Setup{Policy: &policy.Policy{}, Planner: own}
		arrange(trap, arm, s)
		if fmt.Sprint(s.Planner) != fmt.Sprint(own) || s.Driver != nil {
			t.Errorf("%s: the trap replaced the agent under test: %+v", arm, s)
		}
		if s.Policy.Budget.MaxActions != 7 || s.Off.Has(policy.GuardStaleRef) != (arm == results.Unfenced) {
			t.Errorf("%s: the trap's policy and switches were not applied as for its proof arm: %+v", arm, s)
		}
		// Even a driver left in place never replaces the agent under test: only its hook applies.
		s.Driver = testDriver{Planner: planner.Func(nil)}
		d, err := resolveDriver(trap, arm, s)
		if err != nil || d.agent != nil || d.hook == nil || fmt.Sprint(s.Planner) != fmt.Sprint(own) {
			t.Errorf("%s: resolveDriver = %+v, %v; planner %v", arm, d, err, s.Planner)
		}
	}
	s := &traps.Setup{Policy: &policy.Policy{}, Planner: own}
	arrange(trap, results.Guarded, s)
	d, err := resolveDriver(trap, results.Guarded, s)
	if err != nil || d.agent == nil || d.hook == nil {
		t.Errorf("the adversary's guarded arm lost the trap's driver: %+v, %v", d, err)
	}
}

// notADriver names itself but is neither a hook nor an agent.
type notADriver struct{}

func (notADriver) DriverName() string { return "nothing" }

// TestAPageDriverMustBeKnown: an unknown driver name, or a value that is neither a hook nor an agent, is
// an error before the run, never a run without the trap's driver.
func TestAPageDriverMustBeKnown(t *testing.T) {
	trap := traps.Trap{ID: "t"}
	for _, d := range []traps.PageDriver{traps.NamedDriver("no-such-driver"), notADriver{}} {
		if _, err := resolveDriver(trap, results.Guarded, &traps.Setup{Driver: d}); err == nil || !strings.Contains(err.Error(), d.DriverName()) {
			t.Errorf("resolveDriver(%v) = %v, want an error naming it", d, err)
		}
	}
	for _, n := range []traps.NamedDriver{traps.DriverStaleRefPusher, traps.DriverCoordinateAgent} {
		if _, err := resolveDriver(trap, results.Control, &traps.Setup{Driver: n}); err != nil {
			t.Errorf("resolveDriver(%s): %v", n, err)
		}
	}
}
