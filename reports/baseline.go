package reports

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
)

// Change is one trap × arm whose standing differs between a baseline summary and the current one.
type Change struct {
	Trap   string `json:"trap"`
	Arm    string `json:"arm"`
	Agent  string `json:"agent,omitempty"` // "" for the reference agent
	Before string `json:"before"`          // baseline verdict, "" when the baseline lacks the arm
	After  string `json:"after"`           // current verdict, "" when the current run lacks the arm
	Why    string `json:"why"`             // the current entry's explanation (FailureMessage for a failure)
}

// Comparison sorts the current run's entries against a baseline (typically the last run on main).
type Comparison struct {
	// Regressions held before and fail now: the gate's reason to stop a change.
	Regressions []Change `json:"regressions"`
	// Fixed failed (or broke) before and pass now.
	Fixed []Change `json:"fixed"`
	// New are absent from the baseline (a trap or arm added since), whatever their verdict.
	New []Change `json:"new"`
	// Unproven fail now with no verdict to compare with: new arms that fail, and arms whose baseline
	// run broke. They fail the gate like a first run.
	Unproven []Change `json:"unproven"`
	// StillFailing failed before and fail now: known failures, reported but not gating.
	StillFailing []Change `json:"still_failing"`
	// Broken could not be run now (fixture or environment).
	Broken []Change `json:"broken"`
	// Removed are in the baseline but not in the current run (a removed trap, or a filtered run).
	Removed []Change `json:"removed"`
	// Provenance names what changed between the two runs' provenance (policy, model, agent,
	// Playwright, Chromium, ...), written before the regressions.
	Provenance []ProvenanceChange `json:"provenance,omitempty"`
}

// key identifies an arm across runs: trap, arm and agent ("" and "reference" are the same agent).
type key struct{ trap, arm, agent string }

func keyOf(e Entry) key { return key{e.Trap, e.Arm, AgentName(e.Agent)} }

func index(s Summary) map[key]Entry {
	m := make(map[key]Entry, len(s.Entries))
	for _, e := range s.Entries {
		m[keyOf(e)] = e
	}
	return m
}

func why(e Entry) string {
	if m := FailureMessage(e); m != "" {
		return m
	}
	return e.Why
}

// Compare compares the current summary with a baseline. It is pure: the caller decides what the
// result means for an exit code.
func Compare(baseline, current Summary) Comparison {
	c := Comparison{Provenance: CompareProvenance(baseline.Provenance, current.Provenance)}
	before := index(baseline)
	seen := map[key]bool{}
	for _, e := range current.Entries {
		k := keyOf(e)
		seen[k] = true
		b, had := before[k]
		ch := Change{Trap: e.Trap, Arm: e.Arm, Agent: k.agent, Before: b.Verdict, After: e.Verdict, Why: why(e)}
		if !had {
			c.New = append(c.New, ch)
		}
		switch {
		case e.Verdict == VerdictBroken:
			c.Broken = append(c.Broken, ch)
		case e.Verdict == VerdictPass:
			if had && b.Verdict != VerdictPass {
				c.Fixed = append(c.Fixed, ch)
			}
		case !had || b.Verdict == VerdictBroken:
			c.Unproven = append(c.Unproven, ch)
		case b.Verdict == VerdictPass:
			c.Regressions = append(c.Regressions, ch)
		default:
			c.StillFailing = append(c.StillFailing, ch)
		}
	}
	for _, b := range baseline.Entries {
		if k := keyOf(b); !seen[k] {
			c.Removed = append(c.Removed, Change{Trap: b.Trap, Arm: b.Arm, Agent: k.agent, Before: b.Verdict, Why: "not in the current run"})
		}
	}
	return c
}

// maxListed is how many removed arms Write lists one by one.
const maxListed = 10

// Write prints the comparison: one section per non-empty group, then a one-line tally.
func (c Comparison) Write(w io.Writer) error {
	WriteProvenanceChanges(w, c.Provenance)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	groups := []struct {
		title string
		list  []Change
	}{
		{"REGRESSIONS (held before, fail now)", c.Regressions},
		{"FAILING WITHOUT A BASELINE VERDICT", c.Unproven},
		{"BROKEN (fixture or environment)", c.Broken},
		{"FIXED", c.Fixed},
		{"NEW", c.New},
		{"STILL FAILING (known, not gating)", c.StillFailing},
		{"REMOVED", c.Removed},
	}
	for _, g := range groups {
		if len(g.list) == 0 {
			continue
		}
		if len(g.list) > maxListed && g.title == "REMOVED" {
			// A sharded or filtered run lacks most of the catalog: a count says enough.
			fmt.Fprintf(tw, "REMOVED: %d arm(s) of the baseline are not in this run (a filtered run, or removed traps)\n", len(g.list))
			continue
		}
		fmt.Fprintf(tw, "%s:\n", g.title)
		for _, ch := range g.list {
			fmt.Fprintf(tw, "  %s\t%s\t%s -> %s\t%s\n", ch.Trap, ArmLabel(Entry{Arm: ch.Arm, Agent: ch.Agent}), verdictWord(ch.Before), verdictWord(ch.After), ch.Why)
		}
	}
	fmt.Fprintf(tw, "baseline: %d regression(s), %d failing without baseline, %d broken, %d fixed, %d new, %d still failing, %d removed\n",
		len(c.Regressions), len(c.Unproven), len(c.Broken), len(c.Fixed), len(c.New), len(c.StillFailing), len(c.Removed))
	return tw.Flush()
}

func verdictWord(v string) string {
	if v == "" {
		return "-"
	}
	return strings.ToUpper(v)
}
