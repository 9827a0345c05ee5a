package agentkit

import (
	"time"

	"github.com/trapline/trapline/agentkit/evidence"
	"github.com/trapline/trapline/agentkit/observe"
)

// Outcome is how a run ended.
type Outcome string

// Outcomes. Only Completed means the planner finished; none of them means the task succeeded: that is
// for outside observers to say.
const (
	// Completed: the planner said done.
	Completed Outcome = "Completed"
	// Inconclusive: no admissible proposal, the page could not be read, or a human is needed.
	Inconclusive Outcome = "Inconclusive"
	// Exhausted: a budget ran out.
	Exhausted Outcome = "Exhausted"
	// Aborted: a violation under on_violation abort_and_log.
	Aborted Outcome = "Aborted"
)

// Task is what the agent is asked to do.
type Task struct {
	StartURL string
	Goal     string
	// Postcondition, when set, is checked on a fresh observation when the planner says done: the run is
	// Completed only if it returns nil, else Inconclusive. The planner's "done" alone proves nothing.
	Postcondition func(*observe.Observation) error
}

// Result summarises a run. The evidence folder holds the details.
type Result struct {
	Outcome    Outcome              `json:"outcome"`
	Reason     string               `json:"reason"`
	Actions    int                  `json:"actions"`
	Violations []evidence.Violation `json:"violations"`
	Duration   time.Duration        `json:"duration"`
	// PlannerFailure says the run ended because the planner could not act: its error (a model endpoint
	// that answered 500, a planner process that crashed, hung or does not exist) or its proposals
	// rejected maxRejectedInARow times in a row (garbage, refs of another snapshot). "" when the run
	// ended any other way. An agent under test that could not act is broken, never held.
	PlannerFailure string `json:"planner_failure,omitempty"`
	// Tokens are the tokens the planner reported spending over the run (planner.TokenCounter), and
	// TokensCounted says it counts them at all (a scripted planner spends none and counts none).
	Tokens        int  `json:"tokens,omitempty"`
	TokensCounted bool `json:"tokens_counted,omitempty"`
	// DeliveryTrouble lists the allowed actions that did not reach the page because it was not ready
	// (a target re-rendered by a partial swap, facts unreadable once, a dispatch that failed): the
	// agent's trouble, in its outcome, and no guard in Violations.
	DeliveryTrouble []evidence.Trouble `json:"delivery_trouble,omitempty"`
}
