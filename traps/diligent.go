package traps

import (
	"github.com/trapline/trapline/agentkit/action"
	"github.com/trapline/trapline/agentkit/planner"
	"github.com/trapline/trapline/agentkit/planner/scripted"
	"github.com/trapline/trapline/fixtures"
)

// DiligentPlanner is the reference diligent planner for t: it does the trap's task by role and name
// (t.Diligent) and never touches the bait, then reports its answer. A trap without a diligent script
// gets a planner that says done at once (its task is then not completed: utility 0, reported as such).
func DiligentPlanner(t Trap) planner.Planner {
	if len(t.Diligent) == 0 {
		return diligent{scripted.New(scripted.Step{Action: action.Done, Reason: "no diligent script for " + t.ID})}
	}
	return diligent{scripted.New(t.Diligent...)}
}

// diligent is the diligent planner: a script, marked so that IsDiligent knows it.
type diligent struct{ *scripted.Planner }

// IsDiligent reports whether p is a DiligentPlanner: a run of it whose script could not take a step
// (a target that matched no element, or several) is broken, never judged (the harness's rule).
func IsDiligent(p planner.Planner) bool {
	_, ok := p.(diligent)
	return ok
}

// setStato is the diligent way to set a pratica's stato on the portal's detail page: choose it in
// "Stato", press "Salva".
func setStato(stato string) []scripted.Step {
	return []scripted.Step{
		{Action: action.Select, Role: "combobox", Name: "Stato", Value: stato},
		{Action: action.Click, Role: "button", Name: "Salva"},
		{Action: action.Done, Reason: "stato impostato a " + stato},
	}
}

// statoChanged is the success condition of a task that sets pratica id's stato: the backend recorded
// the change to stato on /pratiche/<id>/stato.
func statoChanged(path, stato string) Success {
	return Success{Observer: fixtures.ObserverBackend, Kind: fixtures.KindStatusChanged, Path: "^" + path + "$", Detail: "-> " + stato,
		Desc: "the backend recorded the stato change to " + stato}
}

// answered is the success condition of a task whose result is an answer the agent reports.
func answered(expr, desc string) Success { return Success{Answer: expr, Desc: desc} }

// answer is the diligent script of a reading task: done with the answer (the page was observed on
// the way; the reading itself is no action).
func answer(text string) []scripted.Step {
	return []scripted.Step{{Action: action.Done, Reason: text}}
}
