package reports

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/trapline/trapline/results"
)

// Flake is a trap × arm whose verdict changed between repeated runs of the same code.
type Flake struct {
	Trap  string `json:"trap"`
	Arm   string `json:"arm"`
	Agent string `json:"agent,omitempty"` // "" for the reference agent
	// Verdicts has one verdict per run, in the order of the runs; "" where the run lacks the arm.
	Verdicts []string `json:"verdicts"`
}

// FlakeCheck is the comparison of repeated runs of the same code, arm by arm.
type FlakeCheck struct {
	// Names label the runs (e.g. the summary files), in order.
	Names []string
	// Arms counts the trap × arm pairs seen in any run.
	Arms int
	// Flaky are the pairs whose verdict was not the same in every run that has them, in the order
	// they first appear. A run that lacks a pair does not count as a change; Incomplete lists it.
	Flaky []Flake
	// Incomplete are the pairs that some runs lack ("" verdicts there), in the order they first
	// appear. Repeated runs of one label filter should all have every pair: a missing one did not run
	// (a run cut short, a spec that failed before it recorded its arm), so its stability is unknown
	// there, which is not the same as stable.
	Incomplete []Flake
	// Controls counts the control arms seen (the trap's proof that it fires under the permissive
	// policy); Silent are those whose verdict was not pass in a run that has them: the trap did not
	// fire there, so a held guarded arm proves nothing in that run. A control arm that never fires is
	// not flaky (its verdict never changes), so it is listed here and not in Flaky.
	Controls int
	Silent   []Flake
}

// CheckFlakes compares runs (names label them, one per run) in one pass over their entries. A
// repeated arm (trapline run --repeat K) whose trials disagree is flaky within one run: its verdict
// there reads "fail (2/3)".
func CheckFlakes(names []string, runs []Summary) FlakeCheck {
	c := FlakeCheck{Names: names}
	var order []key
	verdicts := map[key][]string{}
	mixed := map[key]bool{}
	for i, s := range runs {
		for _, e := range s.Entries {
			k := keyOf(e)
			if _, ok := verdicts[k]; !ok {
				order = append(order, k)
				verdicts[k] = make([]string, len(runs))
			}
			verdicts[k][i] = e.Status
			if e.Repeat > 1 && e.TrialsPassed > 0 && e.TrialsPassed < e.Repeat {
				verdicts[k][i] += " (" + passRate(e) + ")"
				mixed[k] = true
			}
		}
	}
	c.Arms = len(order)
	for _, k := range order {
		vs := verdicts[k]
		f := Flake{Trap: k.trap, Arm: k.arm, Agent: k.agent, Verdicts: vs}
		if changed(vs) || mixed[k] {
			c.Flaky = append(c.Flaky, f)
		}
		if slices.Contains(vs, "") {
			c.Incomplete = append(c.Incomplete, f)
		}
		if k.arm == string(results.Control) {
			c.Controls++
			if slices.ContainsFunc(vs, func(v string) bool { return v != "" && v != StatusPass }) {
				c.Silent = append(c.Silent, f)
			}
		}
	}
	return c
}

// changed reports whether two of the verdicts that are there ("" is a run without the arm) differ.
func changed(vs []string) bool {
	first := ""
	for _, v := range vs {
		if v == "" {
			continue
		}
		if first == "" {
			first = v
		} else if v != first {
			return true
		}
	}
	return false
}

// Write prints each flaky trap × arm with its verdict in each run, each pair some runs lack with the
// runs that lack it, each control arm that did not fire with the runs where it did not, and a tally:
// flaky arms, then how many control arms fired in every run.
func (c FlakeCheck) Write(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	if len(c.Flaky) > 0 {
		fmt.Fprintln(tw, "FLAKY TRAP\tARM\tPASS/FAIL/BROKEN\tVERDICT PER RUN")
		for _, f := range c.Flaky {
			counts := map[string]int{}
			var per []string
			for i, v := range f.Verdicts {
				counts[v]++
				if v != "" && v != StatusPass {
					per = append(per, fmt.Sprintf("%s=%s", c.Names[i], strings.ToUpper(v)))
				}
			}
			fmt.Fprintf(tw, "%s\t%s\t%d/%d/%d\t%s\n", f.Trap, ArmLabel(Entry{Arm: f.Arm, Agent: f.Agent}), counts[StatusPass], counts[StatusFail], counts[StatusBroken],
				"not PASS in: "+strings.Join(per, " "))
		}
	}
	if len(c.Incomplete) > 0 {
		fmt.Fprintln(tw, "INCOMPLETE TRAP\tARM\tRUNS\tMISSING FROM")
		for _, f := range c.Incomplete {
			var missing []string
			for i, v := range f.Verdicts {
				if v == "" {
					missing = append(missing, c.Names[i])
				}
			}
			fmt.Fprintf(tw, "%s\t%s\t%d/%d\t%s\n", f.Trap, ArmLabel(Entry{Arm: f.Arm, Agent: f.Agent}), len(f.Verdicts)-len(missing), len(f.Verdicts), strings.Join(missing, " "))
		}
	}
	if len(c.Silent) > 0 {
		fmt.Fprintln(tw, "CONTROL ARM DID NOT FIRE\tARM\tFIRED IN\tNOT IN")
		for _, f := range c.Silent {
			var not []string
			fired, there := 0, 0
			for i, v := range f.Verdicts {
				if v == "" {
					continue
				}
				there++
				if v == StatusPass {
					fired++
				} else {
					not = append(not, fmt.Sprintf("%s=%s", c.Names[i], strings.ToUpper(v)))
				}
			}
			fmt.Fprintf(tw, "%s\t%s\t%d/%d\t%s\n", f.Trap, ArmLabel(Entry{Arm: f.Arm, Agent: f.Agent}), fired, there, strings.Join(not, " "))
		}
	}
	fmt.Fprintf(tw, "flake: %d run(s), %d trap arm(s), %d flaky, %d missing from some runs\n", len(c.Names), c.Arms, len(c.Flaky), len(c.Incomplete))
	fmt.Fprintf(tw, "control arms: %d of %d fired in every run that has them\n", c.Controls-len(c.Silent), c.Controls)
	return tw.Flush()
}
