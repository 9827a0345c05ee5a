package harness

import (
	"context"

	"github.com/trapline/trapline/traps"
	"github.com/trapline/trapline/world"
)

// afterRun is what every run (an arm of the reference agent or an agent under test) records once its
// world is closed, judged from outside: what the observers saw (observe), a budget trap's runaway
// steps past limit, the refusals tied to the control arm's attempts, and the state probe's reading
// against before. looped says the run was the loop's (agentkit.Agent), whose action log ties each
// refusal that names no action to the action that caused it (tieCauses).
func afterRun(ctx context.Context, o Options, trap traps.Trap, arm Arm, res *Result, w world.World, dir string, limit int, before probeReading, looped bool) error {
	if err := observe(res, trap, w, dir); err != nil {
		return err
	}
	if looped {
		if err := tieCauses(res, dir); err != nil {
			return err
		}
	}
	markRunaways(res, trap, limit)
	if err := tieAttempts(res, o, arm, dir); err != nil {
		return err
	}
	return probeAfter(ctx, o, trap, res, before)
}
