package browser

import (
	"context"
	"errors"
	"fmt"
	"time"

	playwright "github.com/mxschmitt/playwright-go"

	"github.com/trapline/trapline/agentkit/act"
	"github.com/trapline/trapline/agentkit/action"
	"github.com/trapline/trapline/agentkit/observe"
	"github.com/trapline/trapline/agentkit/policy"
)

// dispatcher carries out one kind of action. obs is the page as re-read just before (for an action
// that targets an element) or as the loop last saw it; loc is the re-resolved target, nil for an
// action that targets nothing.
type dispatcher func(ctx context.Context, s *Session, a action.Action, obs *observe.Observation, loc playwright.Locator) act.Result

// scrollStep is how far one scroll moves the page, in CSS pixels.
const scrollStep = 600

// scrollSettle bounds the wait for a scroll to move the page.
const scrollSettle = 500 * time.Millisecond

// dispatch is the one table from action kind to dispatcher; TestDispatchCoversEveryKind proves it
// covers action.Kinds().
var dispatch = map[action.Kind]dispatcher{
	action.Goto: func(ctx context.Context, s *Session, a action.Action, _ *observe.Observation, _ playwright.Locator) act.Result {
		return s.Goto(ctx, a.URL)
	},
	action.Click: element(func(s *Session, a action.Action, loc playwright.Locator) error {
		if s.opts.Off.Has(policy.GuardStaleRef) { // the control arm: a plain click, as a naive agent does
			return loc.Click(playwright.LocatorClickOptions{Timeout: ms(s.opts.ActionTimeout)})
		}
		return s.pointerClick(loc) // pointer.go: re-read when the pointer arrives and the button goes down
	}),
	action.Fill: element(func(s *Session, a action.Action, loc playwright.Locator) error {
		return loc.Fill(a.Value, playwright.LocatorFillOptions{Timeout: ms(s.opts.ActionTimeout)})
	}),
	action.Select: element(func(s *Session, a action.Action, loc playwright.Locator) error {
		_, err := loc.SelectOption(playwright.SelectOptionValues{ValuesOrLabels: &[]string{a.Value}}, playwright.LocatorSelectOptionOptions{Timeout: ms(s.opts.ActionTimeout)})
		return err
	}),
	action.Press: element(func(s *Session, a action.Action, loc playwright.Locator) error {
		return loc.Press(a.Key, playwright.LocatorPressOptions{Timeout: ms(s.opts.ActionTimeout)})
	}),
	// A hover moves the pointer over the element (mouseenter, :hover) and clicks nothing: what the
	// page reveals under the pointer is in the next observation.
	action.Hover: element(func(s *Session, a action.Action, loc playwright.Locator) error {
		return loc.Hover(playwright.LocatorHoverOptions{Timeout: ms(s.opts.ActionTimeout)})
	}),
	action.Scroll: scroll,
	action.Read:   read,
	action.Done: func(context.Context, *Session, action.Action, *observe.Observation, playwright.Locator) act.Result {
		return act.Result{Delivery: act.Delivered, Verification: "done: nothing to dispatch"}
	},
}

// element makes the dispatcher of an action on a resolved element: do it, then classify and verify.
func element(do func(s *Session, a action.Action, loc playwright.Locator) error) dispatcher {
	return func(ctx context.Context, s *Session, a action.Action, obs *observe.Observation, loc playwright.Locator) act.Result {
		if loc == nil {
			return act.Failed(act.DispatchFailed, "action %s needs a resolved target", a.Kind)
		}
		defer s.dispatching(ctx, a, obs)() // the opener of the dialogs it opens (dialog.go)
		err := do(s, a, loc)
		var refused *act.Error
		if errors.As(err, &refused) && (refused.Code == act.PointerSwap || refused.Code == act.DispatchFailed || refused.Code == act.TargetCovered) {
			return act.Result{Delivery: act.NotDelivered, Code: refused.Code, Err: err}
		}
		return s.settle(ctx, a, obs, loc, err)
	}
}

// read is Delivered at once for a read of one element (the planner reads it in the observation it
// already has); a read of the whole page takes a fresh snapshot, which becomes the loop's next
// observation.
func read(ctx context.Context, s *Session, a action.Action, _ *observe.Observation, loc playwright.Locator) act.Result {
	if loc != nil {
		return act.Result{Delivery: act.Delivered, Verification: "read"}
	}
	after, err := s.Observe(ctx)
	if err != nil {
		return act.Result{Delivery: act.NotDelivered, Code: act.DispatchFailed, Err: fmt.Errorf("read the page: %w", err)}
	}
	return act.Result{Delivery: act.Delivered, Verification: "read the page", After: after}
}

// scroll moves the page one step up or down with the mouse wheel and verifies by reading the scroll
// position: Delivered when it moved, DeliveredUnverified when it did not (already at the end).
func scroll(ctx context.Context, s *Session, a action.Action, _ *observe.Observation, _ playwright.Locator) act.Result {
	dy := float64(scrollStep)
	if a.Dir == "up" {
		dy = -dy
	}
	before, err := s.scrollY()
	if err != nil {
		return act.Result{Delivery: act.NotDelivered, Code: act.DispatchFailed, Err: fmt.Errorf("scroll: read position: %w", err)}
	}
	if err := s.page.Mouse().Wheel(0, dy); err != nil {
		return act.Result{Delivery: act.NotDelivered, Code: act.DispatchFailed, Err: fmt.Errorf("scroll %s: %w", a.Dir, err)}
	}
	// The wheel scrolls asynchronously: wait (briefly) for the position to move. A page already at
	// its end never moves, so a timeout here is not an error.
	_, _ = s.page.WaitForFunction("y => window.scrollY !== y", before, playwright.PageWaitForFunctionOptions{Timeout: ms(scrollSettle)})
	after, err := s.scrollY()
	obs, oerr := s.Observe(ctx)
	res := act.Result{Delivery: act.DeliveredUnverified, Verification: fmt.Sprintf("scroll position unchanged at %.0f", before)}
	if oerr == nil {
		res.After = obs
	}
	if err == nil && after != before {
		res.Delivery, res.Verification = act.Delivered, fmt.Sprintf("scrolled from %.0f to %.0f", before, after)
	}
	return res
}

// scrollY reads the page's vertical scroll position.
func (s *Session) scrollY() (float64, error) {
	v, err := s.page.Evaluate("() => window.scrollY")
	if err != nil {
		return 0, err
	}
	switch n := v.(type) {
	case float64:
		return n, nil
	case int:
		return float64(n), nil
	}
	return 0, fmt.Errorf("window.scrollY is %T", v)
}
