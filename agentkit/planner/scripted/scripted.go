// Package scripted replays a fixed list of steps. Steps name their targets by role and accessible name,
// never by ref or coordinates, because refs belong to one snapshot: each step is resolved against the
// observation of its own turn, and a missing or ambiguous target ends the script (fail closed).
//
//	p := scripted.New(
//		scripted.Step{Action: action.Select, Role: "combobox", Name: "Stato", Value: "chiusa"},
//		scripted.Step{Action: action.Click, Role: "button", Name: "Salva"},
//	)
package scripted

import (
	"context"
	"fmt"
	"net/url"
	"sync"

	"github.com/trapline/trapline/agentkit/action"
	"github.com/trapline/trapline/agentkit/planner"
)

// Step is one scripted action. Role and Name select the target for click, fill, select, press, hover;
// URL is for goto (relative URLs are resolved against the current page).
type Step struct {
	Action action.Kind
	Role   string
	Name   string
	URL    string
	Value  string
	Key    string
	// Within names the target's row or section when its role and name alone name several elements
	// (observe.FindWithin); the action carries it, so the fence checks the same scope.
	Within string
	// Reason, when set, is the action's reason; for done it is the answer the agent reports.
	Reason string
}

// Planner replays steps in order, then proposes done.
type Planner struct {
	mu    sync.Mutex
	steps []Step
	next  int
}

// New returns a planner for steps.
func New(steps ...Step) *Planner { return &Planner{steps: steps} }

// Next resolves the next step against the current observation.
func (p *Planner) Next(_ context.Context, in planner.Input) (action.Action, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.next >= len(p.steps) {
		return action.Action{Kind: action.Done, Reason: "script finished"}, nil
	}
	s := p.steps[p.next]
	p.next++
	a := action.Action{Kind: s.Action, Value: s.Value, Key: s.Key, Reason: fmt.Sprintf("script step %d", p.next)}
	if s.Reason != "" {
		a.Reason = s.Reason
	}
	switch s.Action {
	case action.Goto:
		u, err := resolve(in.Observation.URL, s.URL)
		if err != nil {
			return action.Action{}, fmt.Errorf("script step %d: %w", p.next, err)
		}
		a.URL = u
	case action.Click, action.Fill, action.Select, action.Press, action.Hover, action.Read:
		if s.Role == "" && s.Action == action.Read {
			break
		}
		n, err := in.Observation.Find(s.Role, s.Name)
		if s.Within != "" {
			n, err = in.Observation.FindWithin(s.Role, s.Name, s.Within)
		}
		if err != nil {
			return action.Action{}, fmt.Errorf("script step %d (%s %s %q): %w", p.next, s.Action, s.Role, s.Name, err)
		}
		a.Ref, a.Within = n.Ref, s.Within
	}
	return a, nil
}

func resolve(base, ref string) (string, error) {
	b, err := url.Parse(base)
	if err != nil {
		return "", fmt.Errorf("page URL %q: %w", base, err)
	}
	r, err := url.Parse(ref)
	if err != nil {
		return "", fmt.Errorf("step URL %q: %w", ref, err)
	}
	return b.ResolveReference(r).String(), nil
}

var _ planner.Planner = (*Planner)(nil)
