package harness

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/trapline/trapline/agentkit/action"
	"github.com/trapline/trapline/agentkit/browser"
	"github.com/trapline/trapline/agentkit/planner"
	"github.com/trapline/trapline/agentkit/policy"
	"github.com/trapline/trapline/fixtures"
	"github.com/trapline/trapline/results"
	"github.com/trapline/trapline/traps"
	"github.com/trapline/trapline/world"
)

// TestOptionsNameTheBadField: every Options that cannot run an arm is an ErrInvalidOptions naming the
// field, before any world or browser starts.
func TestOptionsNameTheBadField(t *testing.T) {
	b := &browser.Browser{} // never used: validation fails or passes before a session opens
	pol := &policy.Policy{}
	ok := Options{Browser: b, Guarded: pol, Control: pol, OutDir: t.TempDir()}
	planned := ok
	planned.NewPlanner = func(traps.Trap, results.Arm) planner.Planner {
		return planner.Func(func(context.Context, planner.Input) (action.Action, error) { return action.Action{}, nil })
	}
	planned.AgentName = "safe"
	with := func(o Options, f func(*Options)) Options { f(&o); return o }
	cases := []struct {
		name string
		o    Options
		arm  results.Arm
		want string
	}{
		{"unknown arm", ok, results.Arm("sideways"), `unknown arm "sideways"`},
		{"no out dir", with(ok, func(o *Options) { o.OutDir = "" }), results.Guarded, "Options.OutDir: empty"},
		{"no browser", with(ok, func(o *Options) { o.Browser = nil }), results.Control, "Options.Browser: nil"},
		{"no guarded policy", with(ok, func(o *Options) { o.Guarded = nil }), results.Guarded, "Options.Guarded: nil"},
		{"no guarded policy, fenced", with(planned, func(o *Options) { o.Guarded = nil }), results.Fenced, "Options.Guarded: nil"},
		{"no control policy", with(ok, func(o *Options) { o.Control = nil }), results.Control, "Options.Control: nil"},
		{"no control policy, unfenced", with(planned, func(o *Options) { o.Control = nil }), results.Unfenced, "Options.Control: nil"},
		{"bad video", with(ok, func(o *Options) { o.Video = "sometimes" }), results.Guarded, `Options.Video: video "sometimes"`},
		{"negative timeout", with(ok, func(o *Options) { o.AgentTimeout = -time.Second }), results.Blackbox, "Options.AgentTimeout: -1s is negative"},
		{"negative trial", with(ok, func(o *Options) { o.Trial = -1 }), results.Guarded, "Options.Trial: -1 is negative"},
		{"fenced without a planner", with(planned, func(o *Options) { o.NewPlanner = nil }), results.Fenced, "Options.NewPlanner: nil"},
		{"fenced as the reference", with(planned, func(o *Options) { o.AgentName = results.ReferenceAgent }), results.Fenced, `Options.AgentName: "reference"`},
		{"unfenced unnamed", with(planned, func(o *Options) { o.AgentName = "" }), results.Unfenced, `Options.AgentName: ""`},
		{"upstream without URL", with(ok, func(o *Options) { o.Upstreams = []fixtures.Upstream{{Host: "app.example.test"}} }), results.Guarded, "Options.Upstreams[0]"},
	}
	for _, c := range cases {
		_, err := c.o.withDefaults(c.arm)
		if !errors.Is(err, ErrInvalidOptions) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: withDefaults = %v, want ErrInvalidOptions with %q", c.name, err, c.want)
		}
	}
	// Valid options get their defaults, and a black-box run needs no browser nor policies.
	for _, c := range []struct {
		o   Options
		arm results.Arm
	}{{ok, results.Guarded}, {ok, results.Control}, {planned, results.Fenced}, {planned, results.Unfenced}, {Options{OutDir: t.TempDir()}, results.Blackbox}} {
		d, err := c.o.withDefaults(c.arm)
		if err != nil {
			t.Errorf("%s: %v", c.arm, err)
			continue
		}
		if _, embedded := d.World.(world.Embedded); !embedded || d.AgentTimeout != DefaultAgentTimeout || d.Video != VideoOff {
			t.Errorf("%s: defaults not applied: %+v", c.arm, d)
		}
	}
	// Run refuses them before anything starts.
	if _, err := Run(context.Background(), with(ok, func(o *Options) { o.Guarded = nil }), traps.Trap{ID: "t"}, results.Guarded); !errors.Is(err, ErrInvalidOptions) {
		t.Errorf("Run = %v, want ErrInvalidOptions", err)
	}
}
