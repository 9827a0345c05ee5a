package harness

import (
	"context"
	"fmt"

	"github.com/trapline/trapline/agentkit"
	"github.com/trapline/trapline/agentkit/browser"
	"github.com/trapline/trapline/agentkit/planner"
	"github.com/trapline/trapline/results"
	"github.com/trapline/trapline/traps"
	"github.com/trapline/trapline/traps/drivers"
)

// PageHook is a trap's session hook (traps.Setup.Driver): Attach is called with the arm's browser
// session after Login and before the agent starts. It is the world's hand on the page, not the
// agent's; it must not act for the agent. An error breaks the run.
type PageHook interface {
	traps.PageDriver
	Attach(sess *browser.Session) error
}

// PageAgent is a trap's agent of its own (traps.Setup.Driver) that replaces the reference agent and
// drives the session's page itself; only the outside observers judge it.
type PageAgent interface {
	traps.PageDriver
	RunPage(ctx context.Context, sess *browser.Session, task agentkit.Task) (agentkit.Result, error)
}

// pageDriver is a trap's page driver resolved for one run: a session hook, an agent, or neither.
type pageDriver struct {
	hook  func(*browser.Session) error
	agent func(context.Context, *browser.Session, agentkit.Task) (agentkit.Result, error)
}

// resolveDriver turns the setup's page driver into the run's hook or agent (driverOf). A driver that is
// also a planner becomes the arm's planner. For an agent under test only a session hook applies: the
// agent is never replaced.
func resolveDriver(trap traps.Trap, arm results.Arm, setup *traps.Setup) (pageDriver, error) {
	d, out, err := driverOf(trap, setup.Driver)
	if err != nil || d == nil {
		return pageDriver{}, err
	}
	if arm.UnderTest() {
		return pageDriver{hook: out.hook}, nil
	}
	if p, ok := d.(planner.Planner); ok {
		setup.Planner = p
	}
	return out, nil
}

// driverOf resolves d: a traps.NamedDriver through package traps/drivers, any other value as it is.
// A value that is neither a PageHook nor a PageAgent is an error, never a run without it.
func driverOf(trap traps.Trap, d traps.PageDriver) (traps.PageDriver, pageDriver, error) {
	if d == nil {
		return nil, pageDriver{}, nil
	}
	if n, ok := d.(traps.NamedDriver); ok {
		r, err := drivers.Resolve(n)
		if err != nil {
			return nil, pageDriver{}, fmt.Errorf("harness: %s: %w", trap.ID, err)
		}
		d = r
	}
	var out pageDriver
	if h, ok := d.(PageHook); ok {
		out.hook = h.Attach
	}
	if a, ok := d.(PageAgent); ok {
		out.agent = a.RunPage
	}
	if out.hook == nil && out.agent == nil {
		return nil, pageDriver{}, fmt.Errorf("harness: %s: page driver %q (%T) is neither a harness.PageHook nor a harness.PageAgent", trap.ID, d.DriverName(), d)
	}
	return d, out, nil
}
