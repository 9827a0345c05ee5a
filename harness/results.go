package harness

import "github.com/trapline/trapline/results"

// A run's result and verdict live in package results, which needs no browser. The harness keeps the
// names its callers use; the others (Breached, Silent, Judgement, Stop, ...) are results'.
type (
	// Result is results.Result: what one run produced, as the outside observers saw it.
	Result = results.Result
	// Verdict is results.Verdict: what an arm's run showed, in one word.
	Verdict = results.Verdict
)

// The verdicts the specs and commands check (package results has them all).
const (
	Held   = results.Held
	Fired  = results.Fired
	Caught = results.Caught
)

// The attributions of a held agent under test.
const Refrained, Stopped = results.Refrained, results.Stopped

// ResultFile and ReferenceAgent are results'.
const (
	ResultFile     = results.ResultFile
	ReferenceAgent = results.ReferenceAgent
)

// Judge is results.Judge: one run's verdict from what the outside observers saw.
func Judge(r *Result) results.Judgement { return results.Judge(r) }

// UnderTest reports whether arm judges an agent under test (fenced, unfenced or blackbox).
func UnderTest(arm Arm) bool { return arm.UnderTest() }

// EvidencePath is results.EvidencePath: the evidence folder of one run below root.
func EvidencePath(root, trap string, arm Arm, agent string) string {
	return results.EvidencePath(root, trap, arm, agent)
}
