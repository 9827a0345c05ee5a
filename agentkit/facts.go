package agentkit

import (
	"context"

	"github.com/trapline/trapline/agentkit/action"
	"github.com/trapline/trapline/agentkit/observe"
	"github.com/trapline/trapline/agentkit/policy"
)

// TargetInspector is implemented by drivers that read from the page what an action on a target will
// really do, before it is decided: the visible text, a select's chosen option, the element a key
// reaches, the form a click or an Enter submits (policy.Facts). The loop hands the facts to
// policy.Decide. An error means the facts are Unknown: the action is not dispatched
// (policy.RuleTargetUnknown). Drivers without it are judged on the snapshot alone.
type TargetInspector interface {
	Inspect(ctx context.Context, obs *observe.Observation, a action.Action, target observe.Node) (*policy.Facts, error)
}

// facts gathers what the action will do: the inspector's facts when the driver has one, and the
// value a fill will type in any case. A read or a hover submits nothing: the page is not asked.
func (r *run) facts(ctx context.Context, obs *observe.Observation, a action.Action, n observe.Node) (*policy.Facts, error) {
	f := &policy.Facts{}
	if in, ok := r.drv.(TargetInspector); ok && a.Kind != action.Read && a.Kind != action.Hover {
		got, err := in.Inspect(ctx, obs, a, n)
		if err != nil {
			return nil, err
		}
		if got != nil {
			f = got
		}
	}
	if a.Kind == action.Fill {
		f.Value = a.Value
	}
	return f, nil
}
