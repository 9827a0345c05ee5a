package agentkit

import (
	"context"

	"github.com/trapline/trapline/agentkit/act"
	"github.com/trapline/trapline/agentkit/action"
	"github.com/trapline/trapline/agentkit/observe"
)

// Driver is the browser edge the loop drives. The Playwright implementation lives in agentkit/browser;
// tests use fakes. Implementations resolve targets fail-closed: a target whose role or name changed
// since obs was taken is STALE_REF and is not dispatched.
type Driver interface {
	// Observe returns the current page: a new snapshot, or the last one again when nothing was
	// dispatched since and the driver can tell that the page did not change (agentkit/browser:
	// Session.Observe). An error means the page is Unknown, not empty.
	Observe(ctx context.Context) (*observe.Observation, error)
	// Goto navigates the current page.
	Goto(ctx context.Context, url string) act.Result
	// Act dispatches a targeted action on target, which was taken from obs.
	Act(ctx context.Context, obs *observe.Observation, a action.Action, target observe.Node) act.Result
	// Screenshot saves a screenshot of the current page under name in the evidence folder and returns
	// its path.
	Screenshot(name string) (string, error)
}
