package reports

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/onsi/ginkgo/v2/reporters"
)

// TestJUnitGateRefusesOtherArms: a JUnit file whose trap-arm cases are not the summary's entries is
// refused, each problem named: a failed reference-arm case the summary lacks (before: exit 0), an
// entry without its case, one arm in two cases, a case whose verdict, result or effects differ. The
// JUnit file trapline run writes for the summary (JUnitOf) passes, and a failed spec of a passing
// arm is returned for the gate.
func TestJUnitGateRefusesOtherArms(t *testing.T) {
	s := Summary{Entries: []Entry{
		{Trap: "decoy-delete", Arm: "guarded", Status: StatusFail, Result: "breached", Effects: []string{"backend pratica.deleted POST /pratiche/4/elimina"}},
		{Trap: "decoy-delete", Arm: "control", Status: StatusPass, Result: "fired", Effects: []string{"backend pratica.deleted POST /pratiche/4/elimina"}},
	}}
	s.Finish(s.Generated)
	dir := t.TempDir()
	write := func(name string, edit func(suite *reporters.JUnitTestSuite)) string {
		j := JUnitOf(s)
		if edit != nil {
			edit(&j.TestSuites[0])
		}
		su := &j.TestSuites[0]
		su.Tests, su.Failures, su.Errors = len(su.TestCases), 0, 0
		for _, tc := range su.TestCases {
			if caseFailed(tc) {
				su.Failures++
			}
		}
		j.Tests, j.Failures, j.Errors = su.Tests, su.Failures, 0
		p := filepath.Join(dir, name)
		if err := WriteJUnit(p, j); err != nil {
			t.Fatal(err)
		}
		return p
	}
	if fails, err := JUnitGate(write("honest.xml", nil), s); err != nil || len(fails) != 0 {
		t.Fatalf("honest: %v, %v", fails, err)
	}
	entryProp := func(tc *reporters.JUnitTestCase, from, to string) {
		for i, p := range tc.Properties.Properties {
			if p.Name == EntryName {
				tc.Properties.Properties[i].Value = strings.Replace(p.Value, from, to, 1)
			}
		}
	}
	for _, c := range []struct {
		name string
		edit func(su *reporters.JUnitTestSuite)
		want string
	}{
		{"extra", func(su *reporters.JUnitTestSuite) {
			tc := su.TestCases[0]
			tc.Name = "[It] trapline run popup guarded"
			tc.Properties = &reporters.JUnitProperties{Properties: append([]reporters.JUnitProperty(nil), tc.Properties.Properties...)}
			entryProp(&tc, `"trap":"decoy-delete"`, `"trap":"popup"`)
			su.TestCases = append(su.TestCases, tc)
		}, `case "[It] trapline run popup guarded" (popup guarded, verdict fail) is not in the summary`},
		{"missing", func(su *reporters.JUnitTestSuite) { su.TestCases = su.TestCases[:1] }, "the summary's decoy-delete control (verdict pass) has no case"},
		{"twice", func(su *reporters.JUnitTestSuite) { su.TestCases = append(su.TestCases, su.TestCases[1]) }, "decoy-delete control is in two cases"},
		{"verdict", func(su *reporters.JUnitTestSuite) {
			entryProp(&su.TestCases[1], `"verdict":"pass"`, `"verdict":"fail"`)
		}, "verdict fail, the summary says pass"},
		{"result", func(su *reporters.JUnitTestSuite) {
			entryProp(&su.TestCases[0], `"result":"breached"`, `"result":"unguarded"`)
		}, `result "unguarded", the summary says "breached"`},
		{"effects", func(su *reporters.JUnitTestSuite) { entryProp(&su.TestCases[1], `pratica.deleted`, `pratica.archived`) }, `effects "backend pratica.archived`},
	} {
		_, err := JUnitGate(write(c.name+".xml", c.edit), s)
		if !errors.Is(err, ErrJUnitMismatch) || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), c.name+".xml") {
			t.Errorf("%s: %v, want %q", c.name, err, c.want)
		}
	}
	// The control arm's spec failed on more than its verdict (a secret in its trace): the gate's.
	fails, err := JUnitGate(write("more.xml", func(su *reporters.JUnitTestSuite) {
		su.TestCases[1].Status, su.TestCases[1].Failure = "failed", &reporters.JUnitFailure{Message: "a secret in trace.zip\nat line 3"}
	}), s)
	if err != nil || len(fails) != 1 || fails[0] != "[It] trapline run decoy-delete control: a secret in trace.zip" {
		t.Errorf("a failed spec of a passing arm: %v, %v", fails, err)
	}
}
