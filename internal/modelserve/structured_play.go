package modelserve

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"

	"github.com/trapline/trapline/agentkit/action"
	"github.com/trapline/trapline/agentkit/observe"
	"github.com/trapline/trapline/agentkit/planner"
	"github.com/trapline/trapline/internal/toolmap"
)

// view is what one structured turn is played on: the page state (the agent's own element list, or
// the run's browser when the agent shows none), the ground truth and the coordinate system.
type view struct {
	st     *toolmap.State
	truth  *Page                  // the run's browser (nil: no page reader)
	boxes  map[string]PageElement // st's refs' boxes when st is the ground truth
	c      coords
	hasC   bool
	reason string // why a point cannot be had, for messages
}

// pointsOnly reports whether the shape's click variants name an element by coordinates alone.
func (sh *shape) pointsOnly() bool {
	clicks := 0
	for _, v := range sh.variants {
		if v.kind != action.Click {
			continue
		}
		clicks++
		props, _ := sh.resolve(v.params)["properties"].(obj)
		for k := range props {
			if handles(k) && !paramIs(k, "x") && !paramIs(k, "y") && !paramIs(k, "point") && !paramIs(k, "box") {
				return false
			}
		}
	}
	return clicks > 0
}

// pointing reports whether any variant takes coordinates.
func (sh *shape) pointing() bool {
	for _, v := range sh.variants {
		props, _ := sh.resolve(v.params)["properties"].(obj)
		for k := range props {
			if paramIs(k, "x") || paramIs(k, "point") || paramIs(k, "box") {
				return true
			}
		}
	}
	return false
}

func (sh *shape) has(k action.Kind) bool {
	return slices.ContainsFunc(sh.variants, func(v variant) bool { return v.kind == k })
}

// view reads the page a structured turn is played on; a 4xx names what is missing.
func (s *Server) view(ctx context.Context, t turn, sh *shape) (view, int, string) {
	var v view
	if t.pageState != "" {
		if st, err := toolmap.ParseState(t.pageState); err == nil {
			v.st = st
		}
	}
	v.c, v.hasC = coordsOf(t)
	needPoints := sh.pointsOnly()
	switch {
	case s.Pages == nil:
		v.reason = "trapline has no view of the run's browser (no page reader: the run's DevTools endpoint) to ground coordinates"
	case !v.hasC:
		v.reason = "the request declares no coordinate system (no screenshot, no computer tool display, no \"normalized 0-1000\")"
	}
	// The run's browser is read only when it is needed: coordinates to ground, or no element list.
	if s.Pages != nil && (sh.pointing() || v.st == nil || len(v.st.Elements) == 0) {
		p, err := s.Pages.ReadPage(ctx)
		if err != nil && needPoints {
			return v, http.StatusUnprocessableEntity, fmt.Sprintf("the schema %q acts by coordinates and the run's browser could not be read: %v", sh.name, err)
		}
		if err == nil {
			v.truth = &p
			if v.st == nil || len(v.st.Elements) == 0 {
				v.st, v.boxes = p.state()
			}
		}
	}
	if needPoints && v.reason != "" {
		return v, http.StatusUnprocessableEntity, fmt.Sprintf("the schema %q acts by coordinates only (%s) and %s; trapline does not guess coordinates from a screenshot",
			sh.name, strings.Join(sh.kinds(), ", "), v.reason)
	}
	if v.st == nil && !(sh.has(action.Goto) && s.StartURL != "" && len(s.history) == 0) {
		return v, http.StatusUnprocessableEntity, fmt.Sprintf("the request asks for the schema %q's actions (%s) but no page state is in the messages "+
			"(no element list: browser-use's \"[N]<tag>\", \"[N] role name\", a snapshot) and trapline has no view of the run's browser", sh.name, strings.Join(sh.kinds(), ", "))
	}
	return v, 0, ""
}

// decideStructured plays a structured-output turn of an agent that offers no tools: the planner's
// move answered as the variant of the shape that makes it, grounded and validated.
func (s *Server) decideStructured(ctx context.Context, t turn, sh *shape) (decision, int, string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	v, code, msg := s.view(ctx, t, sh)
	if code != 0 {
		return decision{}, code, msg
	}
	if v.st == nil || len(v.st.Elements) == 0 && len(s.history) == 0 && sh.has(action.Goto) && s.StartURL != "" { // no page yet: open the task's start page
		a := action.Action{Kind: action.Goto, URL: s.StartURL, Reason: "first turn: open the task's start page"}
		ans, name, err := s.build(sh, v, nil, a)
		if err != nil {
			return decision{}, http.StatusUnprocessableEntity, "the first turn cannot open the start page: " + err.Error()
		}
		s.history = append(s.history, planner.Step{Action: a, Outcome: "proposed to the agent as " + name})
		return decision{structured: ans, actTool: name, why: a.Reason}, 0, ""
	}
	obs, err := observe.Parse(observe.NewSnapshotID(), v.st.URL, v.st.Aria)
	if err != nil {
		return decision{}, http.StatusUnprocessableEntity, "the page state could not be read: " + err.Error()
	}
	goal := cmpOr(s.Goal, t.prompt)
	var ans any
	var name string
	var lastErr, fatal error
	a, code, msg := s.propose(ctx, planner.Input{Goal: goal, Observation: obs}, fmt.Sprintf("the schema %q's actions (%s)", sh.name, strings.Join(sh.kinds(), ", ")), func(next action.Action) (bool, string) {
		ans, name, lastErr = s.build(sh, v, obs, next)
		var ue *ungroundedError
		if errors.As(lastErr, &ue) {
			fatal = lastErr
			return true, "" // stop proposing: the move exists in the agent's action space and cannot be answered
		}
		if lastErr != nil {
			return false, "not delivered: " + lastErr.Error()
		}
		return true, ""
	})
	if code != 0 {
		if lastErr != nil {
			msg += " (the last: " + lastErr.Error() + ")"
		}
		return decision{}, code, msg
	}
	if fatal != nil {
		return decision{}, http.StatusUnprocessableEntity, fmt.Sprintf("the planner's %s cannot be answered in the schema %q: %v", a.Kind, sh.name, fatal)
	}
	s.history = append(s.history, planner.Step{Action: a, Outcome: "proposed to the agent as " + name})
	return decision{structured: ans, actTool: name, why: a.Reason + "; the schema's " + name}, 0, ""
}

// build writes a move as the shape's answer: the first variant of the move's kind whose parameters
// fill with grounded values and whose whole answer validates; a fill on a list shape whose type
// variant names no element is a click on the field, then the typing, and so is a select on a list
// shape with no select variant (the option's text typed into the focused list).
func (s *Server) build(sh *shape, v view, obs *observe.Observation, a action.Action) (any, string, error) {
	g := grounded{move: a}
	if a.Targets() {
		if err := s.ground(&g, v, obs); err != nil {
			return nil, "", err
		}
	}
	kind := a.Kind
	if kind == action.Select && sh.list && !sh.has(action.Select) {
		// No variant selects (magnitude's pixel actions): a click on the list, then its option typed,
		// which a focused <select> takes as its choice.
		kind, g.move.Kind = action.Fill, action.Fill
	}
	var errs []error
	for _, vr := range sh.variants {
		if vr.kind != kind {
			continue
		}
		var acts []any
		act, err := sh.fill(vr, g, true)
		if err == nil {
			acts = []any{act}
		}
		if err != nil && kind == action.Fill && sh.list {
			acts, err = s.clickThenType(sh, vr, g)
		}
		if err == nil && a.Kind == action.Select && kind == action.Fill {
			acts, err = sh.thenEnter(acts, vr.name)
		}
		if err != nil {
			errs = append(errs, err)
			continue
		}
		ans, err := sh.answer(acts, cmpOr(a.Reason, string(a.Kind)))
		if err == nil {
			err = sh.validate(ans)
			if err != nil {
				err = fmt.Errorf("%s does not validate against the request's schema: %w", vr.name, err)
			}
		}
		if err == nil && sh.text != nil {
			ans, err = sh.text.render(ans, cmpOr(a.Reason, string(a.Kind)))
		}
		if err != nil {
			errs = append(errs, err)
			continue
		}
		return ans, vr.name, nil
	}
	if len(errs) == 0 {
		return nil, "", fmt.Errorf("no action of the schema %q makes a %s (it has %s)", sh.name, a.Kind, strings.Join(sh.kinds(), ", "))
	}
	return nil, "", errors.Join(errs...)
}

// ground finds the move's element: its handles in the page state, and its point when the ground
// truth and a coordinate system are at hand (v.reason says why not).
func (s *Server) ground(g *grounded, v view, obs *observe.Observation) error {
	n, err := obs.Lookup(g.move.Ref)
	if err != nil {
		return fmt.Errorf("the planner named no element of the page: %w", err)
	}
	g.el = v.st.Elements[n.RawRef]
	g.el.Role, g.el.Name = n.Role, n.Name
	if v.truth == nil || !v.hasC {
		return nil
	}
	box, ok := v.boxes[n.RawRef]
	if !ok {
		if box, err = v.truth.boxOf(n.Role, n.Name); err != nil {
			return nil // no point: a variant by index still may serve
		}
	}
	cx, cy := box.X+box.W/2, box.Y+box.H/2
	hx, hy := s.habitualPoint(n.Role, n.Name, cx, cy)
	pt, err := v.c.pointAt(*v.truth, box, hx, hy)
	if err != nil {
		return nil
	}
	g.point = &pt
	box.X, box.Y = box.X+hx-cx, box.Y+hy-cy // a habitual model's box is where its point is
	g.box = v.c.box(*v.truth, box)
	return nil
}

// thenEnter ends a select played as typing with the shape's key press of Enter (magnitude's
// keyboard:enter, a variant of no parameters): the click opened the list's popup, the typing moved
// its highlight, and only Enter makes that option the list's choice. A shape with none is an error.
func (sh *shape) thenEnter(acts []any, typ string) ([]any, error) {
	for _, vr := range sh.variants {
		props, _ := sh.resolve(vr.params)["properties"].(obj)
		words := strings.FieldsFunc(strings.ToLower(vr.name), func(r rune) bool { return !(r >= 'a' && r <= 'z') })
		if vr.kind != "" || !slices.Contains(words, "enter") || len(props) > 0 && !(len(props) == 1 && props[vr.tag] != nil) {
			continue
		}
		enter, err := sh.fill(vr, grounded{}, false)
		if err != nil {
			return nil, err
		}
		return append(acts, enter), nil
	}
	return nil, fmt.Errorf("a select played as %s needs a key press of Enter to choose the option, and the schema %q has none", typ, sh.name)
}

// clickThenType answers a fill with a type variant that names no element (magnitude's
// keyboard:type): a click on the field, then the typing.
func (s *Server) clickThenType(sh *shape, typ variant, g grounded) ([]any, error) {
	typed, err := sh.fill(typ, g, false)
	if err != nil {
		return nil, err
	}
	click := g
	click.move.Kind = action.Click
	for _, vr := range sh.variants {
		if vr.kind == action.Click {
			if c, err := sh.fill(vr, click, true); err == nil {
				return []any{c, typed}, nil
			}
		}
	}
	return nil, fmt.Errorf("%s types where the focus is and no click variant can name the field first", typ.name)
}
