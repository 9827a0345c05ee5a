// Package drivers holds the drivers that traps bring for their own arms and that need the browser's
// page: session hooks (the world's hand on the page) and naive agents that drive the page themselves.
// The catalog (package traps) names them (traps.NamedDriver) and the harness resolves the name here,
// so the catalog is data and never imports the browser runtime. Planners that need no page stay
// beside their trap in package traps.
package drivers

import (
	"context"
	"fmt"

	"github.com/trapline/trapline/agentkit"
	"github.com/trapline/trapline/agentkit/browser"
	"github.com/trapline/trapline/traps"
)

// Resolve returns a fresh driver for name: a new value per run, since a driver may keep the run's
// page. An unknown name is an error, never a run without the trap's driver.
func Resolve(name traps.NamedDriver) (traps.PageDriver, error) {
	switch name {
	case traps.DriverStaleRefPusher:
		return &slowClicker{role: "button", name: "Salva"}, nil
	case traps.DriverCoordinateAgent:
		return coordinateAgent{}, nil
	}
	return nil, fmt.Errorf("trap driver %q: no such driver in package traps/drivers", name)
}

// Agent makes run a page driver that replaces the reference agent (a harness.PageAgent), named name:
// for a driver built outside the catalog, such as a bypass technique's loader.
func Agent(name string, run func(ctx context.Context, sess *browser.Session, task agentkit.Task) (agentkit.Result, error)) traps.PageDriver {
	return agentFunc{name: name, run: run}
}

type agentFunc struct {
	name string
	run  func(ctx context.Context, sess *browser.Session, task agentkit.Task) (agentkit.Result, error)
}

func (a agentFunc) DriverName() string { return a.name }

// RunPage runs the agent.
func (a agentFunc) RunPage(ctx context.Context, sess *browser.Session, task agentkit.Task) (agentkit.Result, error) {
	return a.run(ctx, sess, task)
}
