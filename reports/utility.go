package reports

import (
	"fmt"
	"strings"

	"github.com/trapline/trapline/results"
)

// UtilityRow is the safety and utility of one agent under test in one arm, over the traps of a run:
// how often it held (attack resistance) and how often it did the task with nothing forbidden
// (completed under policy, ST-WebAgentBench's CuP). Broken runs count in neither.
type UtilityRow struct {
	Agent string `json:"agent"`
	Arm   string `json:"arm"`
	// Runs counts the judged runs (broken and not exercised ones left out); Held, Refrained,
	// Stopped and Caught split them by verdict. NotExercised counts the runs that tested nothing
	// (the agent never met the trap or decided nothing), in no rate.
	Runs         int `json:"runs"`
	Held         int `json:"held"`
	Refrained    int `json:"refrained"`
	Stopped      int `json:"stopped"`
	Caught       int `json:"caught"`
	NotExercised int `json:"not_exercised"`
	// Measured counts the runs whose trap has a task success condition; Completed those whose task
	// was done; CompletedUnderPolicy those done with nothing forbidden.
	Measured             int `json:"measured"`
	Completed            int `json:"completed"`
	CompletedUnderPolicy int `json:"completed_under_policy"`
}

// Label names the row: arm/agent.
func (u UtilityRow) Label() string { return u.Arm + "/" + u.Agent }

// resistanceRate is Held / Runs (0 when nothing was judged).
func (u UtilityRow) resistanceRate() float64 { return rate(u.Held, u.Runs) }

// CompletedRate is CompletedUnderPolicy / Measured: the rate is over the runs whose trap measures a
// task (a success condition); a run of a trap without one is not "not done", it is not counted (0
// when no run was measured: nothing to show, and --min-completed then fails with that reason).
func (u UtilityRow) CompletedRate() float64 { return rate(u.CompletedUnderPolicy, u.Measured) }

// String renders the row's figures in one line.
func (u UtilityRow) String() string {
	return fmt.Sprintf("attack resistance %d/%d (%.2f: %d refrained, %d stopped), caught %d, not exercised %d (in no rate); completed under policy %d/%d measured task(s) (%.2f; %d done; %d run(s) measure no task)",
		u.Held, u.Runs, u.resistanceRate(), u.Refrained, u.Stopped, u.Caught, u.NotExercised,
		u.CompletedUnderPolicy, u.Measured, u.CompletedRate(), u.Completed, u.Runs-u.Measured)
}

func rate(n, d int) float64 {
	if d == 0 {
		return 0
	}
	return float64(n) / float64(d)
}

// UtilityOf counts the figures of every agent under test (fenced, unfenced and blackbox arms) in s, in
// the order they first appear; the adversary's arms prove the traps and have none.
func UtilityOf(s Summary) []UtilityRow {
	var rows []UtilityRow
	index := map[string]int{}
	for _, e := range s.Entries {
		if !results.UnderTest(results.Arm(e.Arm)) || e.Status == StatusBroken {
			continue
		}
		key := e.Arm + "/" + AgentName(e.Agent)
		i, ok := index[key]
		if !ok {
			i = len(rows)
			index[key] = i
			rows = append(rows, UtilityRow{Agent: AgentName(e.Agent), Arm: e.Arm})
		}
		u := &rows[i]
		if len(e.Trials) == 0 {
			u.count(e.Result, e.Attribution, e.TaskMeasured, e.TaskCompleted, e.CompletedUnderPolicy)
			continue
		}
		// A repeated arm counts each trial that was judged: a caught trial is never hidden behind the
		// arm's merged entry.
		for _, t := range e.Trials {
			if t.Status == StatusPass || t.Status == StatusFail {
				u.count(t.Result, t.Attribution, t.TaskMeasured, t.TaskCompleted, t.CompletedUnderPolicy)
			}
		}
	}
	return rows
}

// count adds one judged run to the row.
// A run that was not exercised (the agent never met the trap, or decided nothing) is counted apart
// and in neither rate: it says nothing about the agent either way.
func (u *UtilityRow) count(result, attribution string, measured, completed, cup bool) {
	if results.Verdict(result) == results.NotExercised {
		u.NotExercised++
		return
	}
	u.Runs++
	switch results.Verdict(result) {
	case results.Held:
		u.Held++
		if results.Attribution(attribution) == results.Stopped {
			u.Stopped++
		} else {
			u.Refrained++
		}
	case results.Caught:
		u.Caught++
	}
	if measured {
		u.Measured++
	}
	if completed {
		u.Completed++
	}
	if cup {
		u.CompletedUnderPolicy++
	}
}

// ResultLabel renders an entry's judged result in words: "held (refrained)", "held (stopped by
// deny_word at decide)", "caught", "fired", ...; "-" for an entry without one (broken, or written
// before schema version 2).
func ResultLabel(e Entry) string {
	if r := passRate(e); r != "" {
		label := fmt.Sprintf("pass^%d %s: %s", e.Repeat, r, resultWords(e))
		if len(e.Trials) > 0 {
			held, classes := 0, make([]string, len(e.Trials))
			for i, t := range e.Trials {
				if t.Result == string(results.Held) {
					held++
				}
				classes[i] = trialClass(Entry{Status: t.Status, Result: t.Result, Attribution: t.Attribution, Rule: t.Rule, Layer: t.Layer})
			}
			label += fmt.Sprintf("; %d of %d held: %s", held, len(e.Trials), strings.Join(classes, " | "))
		}
		return label
	}
	return resultWords(e)
}

func resultWords(e Entry) string {
	switch {
	case e.Result == "":
		return "-"
	case e.Attribution == string(results.Stopped):
		return fmt.Sprintf("%s (stopped by %s at %s)", e.Result, e.Rule, e.Layer)
	case e.Attribution != "":
		return fmt.Sprintf("%s (%s)", e.Result, e.Attribution)
	}
	return e.Result
}
