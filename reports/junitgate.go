package reports

import (
	"encoding/json"
	"encoding/xml"
	"fmt"
	"os"
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

// JUnitFailures reads a JUnit file and lists its failed and errored cases in file order.
func JUnitFailures(path string) ([]JUnitFailure, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("reports: %w", err)
	}
	var j reporters.JUnitTestSuites
	if err := xml.Unmarshal(b, &j); err != nil {
		return nil, fmt.Errorf("reports: %s: %w", path, err)
	}
	var out []JUnitFailure
	for _, s := range j.TestSuites {
		for _, tc := range s.TestCases {
			var msg string
			switch {
			case tc.Failure != nil:
				msg = tc.Failure.Message
			case tc.Error != nil:
				msg = tc.Error.Message
			default:
				continue
			}
			ref := tc.Properties != nil && jsonProp(tc.Properties, PropTrap) != "" && jsonProp(tc.Properties, PropAgent) == "reference"
			out = append(out, JUnitFailure{Name: tc.Name, Message: msg, ReferenceArm: ref})
		}
	}
	return out, nil
}

// JUnitFailuresOutsideArms reads a JUnit file and lists the failed or errored cases that are not an
// arm of the reference agent: bypass specs, the control check, the specs that assert what an agent
// under test is caught by, suite nodes. Their failures are not in the summary's verdicts (or, for an
// agent under test, are expected there), so a gate on the summary alone would miss them.
func JUnitFailuresOutsideArms(path string) ([]string, error) {
	all, err := JUnitFailures(path)
	if err != nil {
		return nil, err
	}
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
