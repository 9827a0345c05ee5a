package reports

import (
	"fmt"
	"io"
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
// the order they first appear. A run that lacks a pair (a filtered run) does not count as a change.
func Flakes(runs []Summary) []Flake {
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

// WriteFlakes prints each flaky trap × arm with its verdict in each run (names label the runs, e.g.
// the summary files) and a one-line tally.
func WriteFlakes(w io.Writer, names []string, runs []Summary, flakes []Flake) error {
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
	pairs := map[key]bool{}
	for _, s := range runs {
		for _, e := range s.Entries {
			pairs[keyOf(e)] = true
		}
	}
	fmt.Fprintf(tw, "flake: %d run(s), %d trap arm(s), %d flaky\n", len(runs), len(pairs), len(flakes))
	return tw.Flush()
}
