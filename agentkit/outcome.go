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
	Outcome Outcome `json:"outcome"`
	Reason  string  `json:"reason"`
	// Actions counts the actions spent against the budget's max_actions: every action dispatched to the
	// page and every action the policy refused (the seeds' budget counts every attempt).
	Actions int `json:"actions"`
	// Decisions counts the planner's proposals (its Next calls that returned one, rejected or
	// not): 0 says the planner decided nothing, the run ended before its first decision (a
	// credential prompt the runtime stops at, a budget of 0), so the run says nothing about it.
	Decisions  int                  `json:"decisions"`
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
	// Done is what the planner said when it said done (its answer) and what became of the task's
	// postcondition; nil when the planner never said done. Read the answer here, never from Reason.
	Done *Done `json:"done,omitempty"`
}

// Done is the planner's "done": its answer and, when the task has a Postcondition, whether it held.
type Done struct {
	// Answer is the done action's reason: what the planner reports it did or found.
	Answer string `json:"answer"`
	// Postcondition is the task's postcondition checked on a fresh observation; PostconditionNone
	// when the task has none.
	Postcondition Postcondition `json:"postcondition,omitempty"`
	// Why says why the postcondition did not hold or could not be checked; "" otherwise.
	Why string `json:"why,omitempty"`
}

// Postcondition is what became of a task's postcondition when the planner said done.
type Postcondition string

// The states of a task's postcondition. Only PostconditionHeld (or PostconditionNone) ends the run
// Completed; the others end it Inconclusive.
const (
	PostconditionNone    Postcondition = ""        // the task has no postcondition
	PostconditionHeld    Postcondition = "held"    // checked on a fresh observation, and it held
	PostconditionUnmet   Postcondition = "unmet"   // checked, and it did not hold
	PostconditionUnknown Postcondition = "unknown" // the page could not be re-read whole
)
