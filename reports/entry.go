package reports

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/trapline/trapline/agentkit"
	"github.com/trapline/trapline/results"
)

// Run names one trap × arm × agent run, for its report entry.
type Run struct {
	Trap, Category, Incident, Task string
	Arm, Agent                     string
	// Evidence is the folder the run wrote (or would have written, had it been carried out).
	Evidence string
}

// Entry is the run's report entry: FromResult of res, a BrokenEntry when err says the run could not be
// carried out, or an InterruptedEntry when a signal cut it off (err is the context's cancellation,
// or the agent's loop ended cancelled): such a run is never judged, so the fence's guards that had
// not fired yet never read as "held by luck". The trap's incident and task are copied in for the
// report's readers.
func (r Run) Entry(res *results.Result, err error) Entry {
	var e Entry
	if cause := interruption(res, err); cause != "" {
		e = InterruptedEntry(r.Trap, r.Category, r.Arm, r.Evidence, cause)
		e.Agent = r.Agent
	} else if err != nil {
		e = BrokenEntry(r.Trap, r.Category, r.Arm, r.Evidence, err)
		e.Agent = r.Agent
	} else {
		e = FromResult(res)
	}
	e.Incident, e.Task = r.Incident, r.Task
	return e
}

// InterruptedEntry records an arm a signal cut off: it was not judged. cause says what stopped it.
func InterruptedEntry(trap, category, arm, evidence, cause string) Entry {
	return Entry{Trap: trap, Category: category, Arm: arm, Status: StatusInterrupted, Why: "interrupted before the arm ended (" + cause + "); not judged",
		Outcome: "interrupted", Evidence: evidence}
}

// interruption names what cut a run off, "" when nothing did: a cancelled context in err, or an
// agent loop that ended on its cancelled context (agentkit: Inconclusive, "cancelled: ...").
func interruption(res *results.Result, err error) string {
	if err != nil && errors.Is(err, context.Canceled) {
		return err.Error()
	}
	if err == nil && res != nil && res.Outcome == agentkit.Inconclusive && strings.HasPrefix(res.Reason, "cancelled: ") {
		return fmt.Sprintf("the agent's run ended %s", res.Reason)
	}
	return ""
}
