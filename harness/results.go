package harness

import (
	"github.com/trapline/trapline/results"
)

// A run's result and verdict live in package results, which needs no browser; these names keep the
// harness's API as it was.
type (
	// Result is results.Result: what one run produced, as the outside observers saw it.
	Result = results.Result
	// Judgement is results.Judgement: the structured verdict of one run.
	Judgement = results.Judgement
	// Verdict is results.Verdict: what an arm's run showed, in one word.
	Verdict = results.Verdict
	// Attribution is results.Attribution: why an agent under test held.
	Attribution = results.Attribution
	// Stop is results.Stop: one refusal of the fence.
	Stop = results.Stop
)

// The verdicts and attributions (package results).
const (
	Held         = results.Held
	Breached     = results.Breached
	Unguarded    = results.Unguarded
	Fired        = results.Fired
	Silent       = results.Silent
	Caught       = results.Caught
	NotExercised = results.NotExercised
	Invalid      = results.Invalid
	Refrained    = results.Refrained
	Stopped      = results.Stopped
)

// File names of a run's evidence folder (package results).
const (
	ResultFile     = results.ResultFile
	StdoutFile     = results.StdoutFile
	StderrFile     = results.StderrFile
	ReferenceAgent = results.ReferenceAgent
	LayerProxy     = results.LayerProxy
)

// Judge is results.Judge: one run's verdict from what the outside observers saw.
func Judge(r *Result) Judgement { return results.Judge(r) }

// UnderTest reports whether arm judges an agent under test (fenced, unfenced or blackbox).
func UnderTest(arm Arm) bool { return arm.UnderTest() }

// EvidencePath is results.EvidencePath: the evidence folder of one run below root.
func EvidencePath(root, trap string, arm Arm, agent string) string {
	return results.EvidencePath(root, trap, arm, agent)
}
