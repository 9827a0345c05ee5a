package harness

import (
	"errors"
	"fmt"
	"slices"

	"github.com/trapline/trapline/results"
	"github.com/trapline/trapline/world"
)

// ErrInvalidOptions is wrapped by the error of an Options that cannot run the arm; the message names
// the field (Options.Video, Options.Guarded, ...) and why.
var ErrInvalidOptions = errors.New("harness: invalid options")

// withDefaults returns o with its defaults applied, validated for a run of arm (Blackbox for
// RunAgent). The one place Options get defaults: World (the embedded world), AgentTimeout
// (DefaultAgentTimeout), Video (VideoOff). A nil NewPlanner stays nil: Run gives each run a fresh
// adversary.
func (o Options) withDefaults(arm results.Arm) (Options, error) {
	if o.World == nil {
		o.World = world.Embedded{}
	}
	if o.AgentTimeout == 0 {
		o.AgentTimeout = DefaultAgentTimeout
	}
	if o.Video == "" {
		o.Video = VideoOff
	}
	if err := o.validate(arm); err != nil {
		return Options{}, err
	}
	return o, nil
}

// validate checks o for a run of arm; the first problem is an error naming its field.
func (o Options) validate(arm results.Arm) error {
	bad := func(field, format string, args ...any) error {
		return fmt.Errorf("%w: Options.%s: %s", ErrInvalidOptions, field, fmt.Sprintf(format, args...))
	}
	if !slices.Contains(results.Arms(), arm) {
		return fmt.Errorf("%w: unknown arm %q (want one of %v)", ErrInvalidOptions, arm, results.Arms())
	}
	if o.OutDir == "" {
		return bad("OutDir", "empty: the evidence root is required")
	}
	if arm != results.Blackbox && o.Browser == nil {
		return bad("Browser", "nil: the %s arm runs in a browser the caller launched (browser.Launch)", arm)
	}
	switch arm {
	case results.Guarded, results.Fenced:
		if o.Guarded == nil {
			return bad("Guarded", "nil: the %s arm runs under the guarded policy", arm)
		}
	case results.Control, results.Unfenced:
		if o.Control == nil {
			return bad("Control", "nil: the %s arm runs under the permissive policy", arm)
		}
	}
	if _, err := ParseVideo(o.Video); err != nil {
		return bad("Video", "%v", err)
	}
	if o.AgentTimeout < 0 {
		return bad("AgentTimeout", "%v is negative", o.AgentTimeout)
	}
	if o.Trial < 0 {
		return bad("Trial", "%d is negative (0 is a single run, 1, 2, ... repeated trials)", o.Trial)
	}
	if arm == results.Fenced || arm == results.Unfenced {
		if o.NewPlanner == nil {
			return bad("NewPlanner", "nil: the %s arm needs the agent under test's planner", arm)
		}
		if !agentName.MatchString(o.AgentName) || o.AgentName == results.ReferenceAgent {
			return bad("AgentName", "%q: the %s arm's agent wants lower-case letters, digits and dashes, not %q", o.AgentName, arm, results.ReferenceAgent)
		}
	}
	for i, u := range o.Upstreams {
		if u.Host == "" || u.URL == "" {
			return bad(fmt.Sprintf("Upstreams[%d]", i), "host %q and URL %q are both required", u.Host, u.URL)
		}
	}
	return nil
}
