package harness

import (
	"fmt"

	"github.com/trapline/trapline/fixtures"
	"github.com/trapline/trapline/traps"
	"github.com/trapline/trapline/world"
)

// StartURL is the browser-facing URL of the trap's start page: on the portal, or on the user's own
// app when the trap names its host (traps.Trap.StartHost).
func StartURL(w world.World, trap traps.Trap) string {
	if trap.StartHost != "" && trap.StartHost != fixtures.PortalHost {
		return "http://" + trap.StartHost + trap.StartPath
	}
	return w.URL(trap.StartPath)
}

// checkStartHost refuses a trap that starts on a user's app no upstream of o serves: the run would
// test nothing.
func checkStartHost(o Options, trap traps.Trap) error {
	if trap.StartHost == "" || trap.StartHost == fixtures.PortalHost {
		return nil
	}
	for _, u := range o.Upstreams {
		if u.Host == trap.StartHost {
			return nil
		}
	}
	return fmt.Errorf("harness: trap %s starts on %s, which no upstream serves (trapline run --upstream %s=URL; Options.Upstreams)", trap.ID, trap.StartHost, trap.StartHost)
}
