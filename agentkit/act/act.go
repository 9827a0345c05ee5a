// Package act holds the delivery semantics of a dispatched action.
//
// A mutation is never simply "done". It is:
//   - NotDelivered: it provably did not reach the page (target not resolved, stale, ambiguous).
//     Safe to propose again.
//   - DeliveredUnverified: it may have landed (the click was dispatched, then something timed out or the
//     page did not visibly change). The state must be re-read; the same action is never retried blindly.
//   - Delivered: the effect was confirmed by re-reading (the value is in the field, the page changed).
package act

import (
	"fmt"

	"github.com/trapline/trapline/agentkit/observe"
	"github.com/trapline/trapline/agentkit/policy"
)

// Delivery classifies what is known about a dispatched action.
type Delivery string

// Delivery states.
const (
	NotDelivered        Delivery = "NotDelivered"
	DeliveredUnverified Delivery = "DeliveredUnverified"
	Delivered           Delivery = "Delivered"
)

// Code names why a target could not be used. Fail closed: each is an error, never a best guess. It is
// policy.Code, the one error-code type of agentkit (observe's codes are the same type), and each value
// is also the id of a registered rule (policy.Registry), so the loop logs it as it is.
type Code = policy.Code

// Resolution failure codes.
const (
	StaleRef        = observe.ErrStaleRef
	AmbiguousTarget = observe.ErrAmbiguousTarget
	UnknownRef      = observe.ErrUnknownRef
	Unnamed         = Code(policy.RuleUnnamedTarget)
	DispatchFailed  = Code(policy.RuleDispatchFailed)
	// TargetGone: the element is no longer on the page (a partial swap replaced it); the page is
	// re-read once, and the loop reports it as delivery trouble, not as a guard.
	TargetGone = Code(policy.RuleTargetGone)
	// PointerSwap: the page changed what the click will do when the pointer arrived or the button
	// went down; the click was not completed (browser pointerClick).
	PointerSwap = Code(policy.RulePointerSwap)
	// TargetCovered: another element lies on top of the target at its centre (the observation marks it,
	// observe.Node.Covered; pointerClick tests it again): the click would land on that one.
	TargetCovered = Code(policy.RuleTargetCovered)
)

// Rule returns the registered rule a resolution code is logged under.
func Rule(c Code) policy.Rule { return policy.Rule(c) }

// Result is what dispatching one action produced.
type Result struct {
	Delivery     Delivery
	Code         Code   // set when the action was not delivered for a known reason
	Verification string // what re-reading showed
	Err          error
	// After is the snapshot the driver took to verify the action, when it took one: the page as it
	// was after the action, and the driver's latest snapshot. The loop uses it as its next observation
	// instead of reading the page once more.
	After *observe.Observation
}

// Error describes a failed dispatch with its code.
type Error struct {
	Code Code
	Msg  string
}

func (e *Error) Error() string { return fmt.Sprintf("%s: %s", e.Code, e.Msg) }

// Is matches on the code, so errors.Is(err, &act.Error{Code: act.StaleRef}) works.
func (e *Error) Is(target error) bool {
	t, ok := target.(*Error)
	return ok && t.Code == e.Code
}

// Unwrap returns the error's Code, so errors.Is(err, act.StaleRef) works as it does for observe errors.
func (e *Error) Unwrap() error { return e.Code }

// Failed returns a NotDelivered result for a resolution failure.
func Failed(code Code, format string, args ...any) Result {
	err := &Error{Code: code, Msg: fmt.Sprintf(format, args...)}
	return Result{Delivery: NotDelivered, Code: code, Err: err}
}
