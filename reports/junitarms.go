package reports

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/onsi/ginkgo/v2/reporters"
)

// ErrJUnitMismatch is returned (wrapped) when a JUnit file's trap-arm cases are not the summary's
// entries: a case no entry has, an entry no case has, or a case whose verdict differs from its entry's.
// The two files are not one run's, or one was edited: a gate decides on neither.
var ErrJUnitMismatch = errors.New("the JUnit file's trap arms are not the summary's entries")

// armCase is a JUnit case's trap arm: the entry it carries (the EntryName property, as specs and
// `trapline run` attach it; else the trap, arm, agent and verdict properties) and whether it failed.
type armCase struct {
	name   string
	entry  Entry
	full   bool // the whole entry was attached (EntryName), not only the properties
	failed bool
}

// armCases lists the trap arms a JUnit document's cases carry (a case may carry several), and the
// failed cases that carry none.
func armCases(j reporters.JUnitTestSuites) (arms []armCase, others []JUnitFailure) {
	for _, s := range j.TestSuites {
		for _, tc := range s.TestCases {
			var es []armCase
			if tc.Properties != nil {
				for _, p := range tc.Properties.Properties {
					var e Entry
					if p.Name == EntryName && json.Unmarshal([]byte(p.Value), &e) == nil {
						es = append(es, armCase{name: tc.Name, entry: e, full: true, failed: caseFailed(tc)})
					}
				}
				if len(es) == 0 && jsonProp(tc.Properties, PropTrap) != "" {
					e := Entry{Trap: jsonProp(tc.Properties, PropTrap), Arm: jsonProp(tc.Properties, PropArm),
						Agent: AgentName(jsonProp(tc.Properties, PropAgent)), Status: jsonProp(tc.Properties, PropVerdict)}
					es = append(es, armCase{name: tc.Name, entry: e, failed: caseFailed(tc)})
				}
			}
			if len(es) > 0 {
				arms = append(arms, es...)
			} else if caseFailed(tc) {
				others = append(others, junitFailures(reporters.JUnitTestSuites{TestSuites: []reporters.JUnitTestSuite{{TestCases: []reporters.JUnitTestCase{tc}}}})...)
			}
		}
	}
	return arms, others
}

// JUnitGate reads a JUnit file for a gate beside the summary s it was written with (the whole
// summary, before any --agent filter) and returns, one line each, the failed cases s's verdicts do not
// already gate: every failed case that is no trap arm (a bypass spec, a suite node), a failed case of
// an agent under test (what its spec asserts), and a failed trap-arm case whose entry passes (the spec
// failed on more than the verdict). A reference arm's failed case whose entry fails is left to the
// summary and the baseline. It refuses (ErrJUnitMismatch) a JUnit file whose trap-arm cases are not
// s's entries: a case that no entry has, an entry that no case has, a trap arm in two cases, or a
// case whose verdict, result or effects differ from its entry's.
func JUnitGate(path string, s Summary) ([]string, error) {
	j, err := ReadJUnit(path)
	if err != nil {
		return nil, err
	}
	arms, others := armCases(j)
	if err := matchArms(arms, s); err != nil {
		return nil, fmt.Errorf("reports: %s: refused: %w", path, err)
	}
	var out []string
	for _, f := range others {
		out = append(out, f.Name+": "+firstLine(f.Message))
	}
	byKey := index(s)
	for _, a := range arms {
		e := byKey[keyOf(a.entry)]
		if !a.failed || (AgentName(e.Agent) == "" && e.Status != StatusPass) {
			continue
		}
		out = append(out, a.name+": "+junitMessage(j, a.name))
	}
	return out, nil
}

// matchArms checks the JUnit file's trap arms against the summary's entries, every problem named.
func matchArms(arms []armCase, s Summary) error {
	var probs []string
	byKey := index(s)
	seen := map[key]string{}
	for _, a := range arms {
		k := keyOf(a.entry)
		label := fmt.Sprintf("%s %s", a.entry.Trap, ArmLabel(a.entry))
		if prev, dup := seen[k]; dup {
			probs = append(probs, fmt.Sprintf("%s is in two cases (%q and %q)", label, prev, a.name))
			continue
		}
		seen[k] = a.name
		e, ok := byKey[k]
		if !ok {
			probs = append(probs, fmt.Sprintf("case %q (%s, verdict %s) is not in the summary", a.name, label, orDash(a.entry.Status)))
			continue
		}
		for _, d := range disagreements(a, e) {
			probs = append(probs, fmt.Sprintf("case %q (%s): %s", a.name, label, d))
		}
	}
	for _, e := range s.Entries {
		if _, ok := seen[keyOf(e)]; !ok {
			probs = append(probs, fmt.Sprintf("the summary's %s %s (verdict %s) has no case", e.Trap, ArmLabel(e), e.Status))
		}
	}
	if len(probs) == 0 {
		return nil
	}
	if n := len(probs) - maxProblems; n > 0 {
		probs = append(probs[:maxProblems], fmt.Sprintf("and %d more problem(s)", n))
	}
	return fmt.Errorf("%w: %s", ErrJUnitMismatch, strings.Join(probs, "; "))
}

// disagreements lists what a case says of its arm that the summary's entry does not.
func disagreements(a armCase, e Entry) []string {
	var out []string
	if a.entry.Status != e.Status {
		out = append(out, fmt.Sprintf("verdict %s, the summary says %s", orDash(a.entry.Status), e.Status))
	}
	if !a.full {
		return out
	}
	if a.entry.Result != e.Result {
		out = append(out, fmt.Sprintf("result %q, the summary says %q", a.entry.Result, e.Result))
	}
	if x, y := strings.Join(a.entry.Effects, "; "), strings.Join(e.Effects, "; "); x != y {
		out = append(out, fmt.Sprintf("effects %q, the summary says %q", x, y))
	}
	return out
}

// junitMessage is the first line of the named case's failure message.
func junitMessage(j reporters.JUnitTestSuites, name string) string {
	for _, f := range junitFailures(j) {
		if f.Name == name {
			return firstLine(f.Message)
		}
	}
	return ""
}

func firstLine(s string) string {
	first, _, _ := strings.Cut(strings.TrimSpace(s), "\n")
	return first
}
