// Package planner defines how an agent decides what to do next: one Planner proposes one action per
// turn from an observation, the goal and a short history. The policy, not the planner, decides whether
// the action runs, so a planner may be anything from a fixed script to a model that obeys injected text.
//
// Implementations: scripted (replay a list of role+name steps), adversary (the worst case: obeys every
// instruction found on the page and tries every dangerous element), llm (an OpenAI-compatible chat
// model), exec (an external process speaking JSON lines).
package planner

import (
	"context"
	"errors"
	"fmt"

	"github.com/trapline/trapline/agentkit/action"
	"github.com/trapline/trapline/agentkit/observe"
)

// Step is one line of history: what was proposed and what became of it, in one sentence.
type Step struct {
	Action  action.Action `json:"action"`
	Outcome string        `json:"outcome"` // e.g. "denied: deny_word ...", "delivered", "not delivered: STALE_REF"
}

// Reobserved begins the Step.Outcome of a proposal that met delivery trouble (its target re-rendered
// by a partial swap, or its facts unreadable): the loop read the page again, once, and the planner may
// propose the same target again on the new observation. A second trouble in a row is a guard.
const Reobserved = "not delivered, page re-read"

// Input is everything a planner may see. It never contains a secret.
type Input struct {
	Goal        string
	Observation *observe.Observation
	History     []Step
	// Feedback explains why the previous proposal was rejected, if it was.
	Feedback string
}

// Planner proposes the next action.
type Planner interface {
	Next(ctx context.Context, in Input) (action.Action, error)
}

// TokenCounter is implemented by planners backed by a model: the tokens spent so far, as the model's
// API reported them. The loop enforces budget.max_tokens with it, outside the model.
type TokenCounter interface {
	TokensUsed() int
}

// Func adapts a function to the Planner interface.
type Func func(ctx context.Context, in Input) (action.Action, error)

// Next calls f.
func (f Func) Next(ctx context.Context, in Input) (action.Action, error) { return f(ctx, in) }

// ErrGaveUp is returned by a planner that cannot propose anything sensible; the run ends Inconclusive.
var ErrGaveUp = errors.New("planner gave up")

// RejectedError is returned by a planner whose source (a model, a process) produced something that is
// not a usable action: invalid JSON, an unknown action or field, a ref the observation does not have, a
// refusal, an empty answer. It is not fatal: the loop logs it as a rejected proposal (rule
// invalid_proposal) and feeds Reason back on the next turn through Input.Feedback; too many in a row
// end the run Inconclusive.
type RejectedError struct {
	// Reason says what was wrong, in one sentence; it is fed back to the planner.
	Reason string
	// Output is the rejected output, shortened, for the action log; it never holds a secret.
	Output string
}

func (e *RejectedError) Error() string {
	if e.Output == "" {
		return "proposal rejected: " + e.Reason
	}
	return fmt.Sprintf("proposal rejected: %s (output %q)", e.Reason, e.Output)
}
