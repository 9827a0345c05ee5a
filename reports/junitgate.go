package reports

import (
	"encoding/json"
	"encoding/xml"
	"errors"
	"fmt"
	"strings"

	"github.com/onsi/ginkgo/v2/reporters"
)

// JUnitFailure is one failed or errored case of a JUnit file: the spec's name, its failure message
// and whether it is an arm of the reference agent (whose verdict the summary holds).
type JUnitFailure struct {
	// Name is the test case's name ("[It] ...").
	Name string
	// Message is the failure's message as Ginkgo wrote it.
	Message string
	// ReferenceArm says the case is a guarded or control arm of the reference agent.
	ReferenceArm bool
}

// ReadJUnit reads a JUnit file for a gate: at most MaxJUnitBytes, every case's status one Ginkgo
// writes, and the counters of each suite and of the document equal to what its cases give (a file that
// says "0 failures" over failed cases is refused, naming the suite and both counts).
func ReadJUnit(path string) (reporters.JUnitTestSuites, error) { return readJUnit(path, true) }

// readJUnit reads a JUnit file; strict (a gate's read) also refuses counters its cases contradict.
func readJUnit(path string, strict bool) (reporters.JUnitTestSuites, error) {
	var j reporters.JUnitTestSuites
	b, err := readLimited(path, "JUnit", MaxJUnitBytes)
	if err != nil {
		return j, err
	}
	if err := xml.Unmarshal(b, &j); err != nil {
		return j, fmt.Errorf("reports: %s: %w", path, err)
	}
	if err := checkJUnitCounts(j, strict); err != nil {
		return j, fmt.Errorf("reports: %s: refused: %w", path, err)
	}
	return j, nil
}

// junitStatuses are the case statuses Ginkgo writes (types.SpecState's words); "" in files written by
// other tools, judged by their failure and error elements alone.
var junitStatuses = map[string]bool{"": true, "passed": true, "skipped": true, "pending": true, "failed": true, "timedout": true,
	"aborted": true, "panicked": true, "interrupted": true}

// caseFailed says a JUnit case failed: it has a failure or an error element, or its status says so.
func caseFailed(tc reporters.JUnitTestCase) bool {
	if tc.Failure != nil || tc.Error != nil {
		return true
	}
	switch tc.Status {
	case "", "passed", "skipped", "pending":
		return false
	}
	return true
}

func checkJUnitCounts(j reporters.JUnitTestSuites, strict bool) error {
	var probs []string
	tests, failed := 0, 0
	for _, s := range j.TestSuites {
		sf := 0
		for _, tc := range s.TestCases {
			if !junitStatuses[tc.Status] {
				probs = append(probs, fmt.Sprintf("suite %q case %q: unknown status %q", s.Name, tc.Name, tc.Status))
			}
			if caseFailed(tc) {
				sf++
			}
		}
		if strict && (s.Tests != len(s.TestCases) || s.Failures+s.Errors != sf) {
			probs = append(probs, fmt.Sprintf("suite %q says %d test(s), %d failure(s) and %d error(s), but its cases are %d, %d of them failed",
				s.Name, s.Tests, s.Failures, s.Errors, len(s.TestCases), sf))
		}
		tests += len(s.TestCases)
		failed += sf
	}
	if strict && (j.Tests != tests || j.Failures+j.Errors != failed) {
		probs = append(probs, fmt.Sprintf("the document says %d test(s), %d failure(s) and %d error(s), but its suites hold %d case(s), %d of them failed",
			j.Tests, j.Failures, j.Errors, tests, failed))
	}
	if len(probs) == 0 {
		return nil
	}
	return errors.New(strings.Join(probs, "; "))
}

// JUnitFailures reads a JUnit file (size-bounded, every case's status known; its counters are not
// checked: this lists, a gate uses JUnitFailuresOutsideArms) and lists its failed and errored cases in
// file order: a case with a failure or error element, or whose status says it did not pass.
func JUnitFailures(path string) ([]JUnitFailure, error) {
	j, err := readJUnit(path, false)
	if err != nil {
		return nil, err
	}
	return junitFailures(j), nil
}

func junitFailures(j reporters.JUnitTestSuites) []JUnitFailure {
	var out []JUnitFailure
	for _, s := range j.TestSuites {
		for _, tc := range s.TestCases {
			var msg string
			switch {
			case tc.Failure != nil:
				msg = tc.Failure.Message
			case tc.Error != nil:
				msg = tc.Error.Message
			case caseFailed(tc):
				msg = "status " + tc.Status + " (no failure message)"
			default:
				continue
			}
			ref := tc.Properties != nil && jsonProp(tc.Properties, PropTrap) != "" && jsonProp(tc.Properties, PropAgent) == "reference"
			out = append(out, JUnitFailure{Name: tc.Name, Message: msg, ReferenceArm: ref})
		}
	}
	return out
}

// JUnitFailuresOutsideArms reads a JUnit file and lists the failed or errored cases that are not an
// arm of the reference agent: bypass specs, the control check, the specs that assert what an agent
// under test is caught by, suite nodes. Their failures are not in the summary's verdicts (or, for an
// agent under test, are expected there), so a gate on the summary alone would miss them.
func JUnitFailuresOutsideArms(path string) ([]string, error) {
	j, err := ReadJUnit(path)
	if err != nil {
		return nil, err
	}
	all := junitFailures(j)
	var out []string
	for _, f := range all {
		if f.ReferenceArm {
			continue // the summary's verdict (and the baseline) decide on it
		}
		first, _, _ := strings.Cut(strings.TrimSpace(f.Message), "\n")
		out = append(out, f.Name+": "+first)
	}
	return out, nil
}

// jsonProp returns a property's value; Ginkgo writes report entries' values JSON-encoded.
func jsonProp(p *reporters.JUnitProperties, name string) string {
	raw := p.WithName(name)
	var v string
	if json.Unmarshal([]byte(raw), &v) == nil {
		return v
	}
	return raw
}
