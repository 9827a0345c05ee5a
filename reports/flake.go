package reports

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"
)

// Flake is a trap × arm whose verdict changed between repeated runs of the same code.
type Flake struct {
	Trap  string `json:"trap"`
	Arm   string `json:"arm"`
	Agent string `json:"agent,omitempty"` // "" for the reference agent
	// Verdicts has one verdict per run, in the order of the runs; "" where the run lacks the arm.
	Verdicts []string `json:"verdicts"`
}

// Flakes returns the trap × arm pairs whose verdict was not the same in every run that has them, in
// the order they first appear. A run that lacks a pair does not count as a change; Incomplete lists
// such pairs.
func Flakes(runs []Summary) []Flake {
	order, verdicts := verdictsPerRun(runs)
	var out []Flake
	for _, k := range order {
		vs := verdicts[k]
		first := ""
		for _, v := range vs {
			if v == "" {
				continue
			}
			if first == "" {
				first = v
			} else if v != first {
				out = append(out, Flake{Trap: k.trap, Arm: k.arm, Agent: k.agent, Verdicts: vs})
				break
			}
		}
	}
	return out
}

// Incomplete returns the trap × arm pairs that some runs lack, with their verdicts ("" where a run
// lacks the pair), in the order they first appear. Repeated runs of one label filter should all
// have every pair: a missing one did not run (a run cut short, a spec that failed before it recorded
// its arm), so its stability is unknown there, which is not the same as stable.
func Incomplete(runs []Summary) []Flake {
	order, verdicts := verdictsPerRun(runs)
	var out []Flake
	for _, k := range order {
		if slices.Contains(verdicts[k], "") {
			out = append(out, Flake{Trap: k.trap, Arm: k.arm, Agent: k.agent, Verdicts: verdicts[k]})
		}
	}
	return out
}

// verdictsPerRun maps each trap × arm pair to its verdict in each run ("" where the run lacks it).
func verdictsPerRun(runs []Summary) ([]key, map[key][]string) {
	var order []key
	verdicts := map[key][]string{}
	for i, s := range runs {
		for _, e := range s.Entries {
			k := keyOf(e)
			if _, ok := verdicts[k]; !ok {
				order = append(order, k)
				verdicts[k] = make([]string, len(runs))
			}
			verdicts[k][i] = e.Verdict
		}
	}
	return order, verdicts
}

// WriteFlakes prints each flaky trap × arm with its verdict in each run (names label the runs, e.g.
// the summary files), each pair some runs lack (incomplete, from Incomplete) with the runs that lack
// it, and a one-line tally.
func WriteFlakes(w io.Writer, names []string, runs []Summary, flakes, incomplete []Flake) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	if len(flakes) > 0 {
		fmt.Fprintln(tw, "FLAKY TRAP\tARM\tPASS/FAIL/BROKEN\tVERDICT PER RUN")
		for _, f := range flakes {
			counts := map[string]int{}
			var per []string
			for i, v := range f.Verdicts {
				counts[v]++
				if v != "" && v != VerdictPass {
					per = append(per, fmt.Sprintf("%s=%s", names[i], strings.ToUpper(v)))
				}
			}
			fmt.Fprintf(tw, "%s\t%s\t%d/%d/%d\t%s\n", f.Trap, ArmLabel(Entry{Arm: f.Arm, Agent: f.Agent}), counts[VerdictPass], counts[VerdictFail], counts[VerdictBroken],
				"not PASS in: "+strings.Join(per, " "))
		}
	}
	if len(incomplete) > 0 {
		fmt.Fprintln(tw, "INCOMPLETE TRAP\tARM\tRUNS\tMISSING FROM")
		for _, f := range incomplete {
			var missing []string
			for i, v := range f.Verdicts {
				if v == "" {
					missing = append(missing, names[i])
				}
			}
			fmt.Fprintf(tw, "%s\t%s\t%d/%d\t%s\n", f.Trap, ArmLabel(Entry{Arm: f.Arm, Agent: f.Agent}), len(f.Verdicts)-len(missing), len(f.Verdicts), strings.Join(missing, " "))
		}
	}
	order, _ := verdictsPerRun(runs)
	fmt.Fprintf(tw, "flake: %d run(s), %d trap arm(s), %d flaky, %d missing from some runs\n", len(runs), len(order), len(flakes), len(incomplete))
	return tw.Flush()
}
