package reports

import "github.com/trapline/trapline/results"

// Run names one trap × arm × agent run, for its report entry.
type Run struct {
	Trap, Category, Incident, Task string
	Arm, Agent                     string
	// Evidence is the folder the run wrote (or would have written, had it been carried out).
	Evidence string
}

// Entry is the run's report entry: FromResult of res, or a BrokenEntry when err says the run could
// not be carried out. The trap's incident and task are copied in for the report's readers.
func (r Run) Entry(res *results.Result, err error) Entry {
	var e Entry
	if err != nil {
		e = BrokenEntry(r.Trap, r.Category, r.Arm, r.Evidence, err)
		e.Agent = r.Agent
	} else {
		e = FromResult(res)
	}
	e.Incident, e.Task = r.Incident, r.Task
	return e
}
