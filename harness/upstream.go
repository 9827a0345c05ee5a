package harness

import (
	"fmt"
	"slices"

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

// armStartURL is StartURL, on the portal alias the arm's setup chose (traps.Setup.StartHost), which
// must be one of the trap's world.
func armStartURL(w world.World, trap traps.Trap, setup *traps.Setup) (string, error) {
	if setup.StartHost == "" {
		return StartURL(w, trap), nil
	}
	if !slices.Contains(trap.Fixtures().PortalAliases, setup.StartHost) {
		return "", fmt.Errorf("harness: %s: the arm starts on %s, which is none of the world's portal aliases %v", trap.ID, setup.StartHost, trap.Fixtures().PortalAliases)
	}
	return "http://" + setup.StartHost + trap.StartPath, nil
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
