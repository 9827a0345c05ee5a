package reports

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/onsi/ginkgo/v2/reporters"
	"github.com/onsi/ginkgo/v2/types"
	"github.com/trapline/trapline/agentkit/policy"
)

// The JUnit schema as Jenkins and GitLab read it (jenkins-junit.xsd): each element lists its allowed
// attributes, and every element and attribute not in the schema lands in an "any" field the test
// rejects.
type junitSuites struct {
	XMLName xml.Name     `xml:"testsuites"`
	Attrs   []xml.Attr   `xml:",any,attr"`
	Suites  []junitSuite `xml:"testsuite"`
	Other   []anyElement `xml:",any"`
}

type junitSuite struct {
	Attrs      []xml.Attr      `xml:",any,attr"`
	Properties *junitPropList  `xml:"properties"`
	Cases      []junitTestCase `xml:"testcase"`
	SystemOut  *string         `xml:"system-out"`
	SystemErr  *string         `xml:"system-err"`
	Other      []anyElement    `xml:",any"`
}

type junitPropList struct {
	Props []junitProp  `xml:"property"`
	Other []anyElement `xml:",any"`
}

type junitProp struct {
	Attrs []xml.Attr `xml:",any,attr"`
}

type junitTestCase struct {
	Attrs      []xml.Attr     `xml:",any,attr"`
	Properties *junitPropList `xml:"properties"`
	Skipped    *junitResult   `xml:"skipped"`
	Error      *junitResult   `xml:"error"`
	Failure    *junitResult   `xml:"failure"`
	SystemOut  *string        `xml:"system-out"`
	SystemErr  *string        `xml:"system-err"`
	Other      []anyElement   `xml:",any"`
}

type junitResult struct {
	Attrs []xml.Attr `xml:",any,attr"`
	Body  string     `xml:",chardata"`
}

type anyElement struct {
	XMLName xml.Name
}

// schema is, per element, the attributes jenkins-junit.xsd allows and the ones it requires.
var schema = map[string]struct{ allowed, required []string }{
	"testsuites": {[]string{"name", "time", "tests", "failures", "disabled", "errors"}, nil},
	"testsuite": {[]string{"name", "tests", "failures", "errors", "group", "time", "disabled", "skipped", "timestamp", "hostname", "id", "package", "file", "log", "url", "version"},
		[]string{"name", "tests"}},
	"testcase": {[]string{"name", "assertions", "time", "classname", "status", "group", "file", "line", "owner"}, []string{"name", "classname", "time"}},
	"property": {[]string{"name", "value"}, []string{"name", "value"}},
	"failure":  {[]string{"message", "type"}, []string{"message", "type"}},
	"error":    {[]string{"message", "type"}, nil},
	"skipped":  {[]string{"message"}, nil},
}

// errorfer is what the schema check reports to: a *testing.T, or a problems list in the test that
// makes sure the check can fail.
type errorfer interface {
	Helper()
	Errorf(format string, args ...any)
}

type problems []string

func (p *problems) Helper() {}
func (p *problems) Errorf(format string, args ...any) {
	*p = append(*p, fmt.Sprintf(format, args...))
}

func attrMap(t errorfer, element string, attrs []xml.Attr) map[string]string {
	t.Helper()
	rule := schema[element]
	m := map[string]string{}
	for _, a := range attrs {
		if !slices.Contains(rule.allowed, a.Name.Local) || a.Name.Space != "" {
			t.Errorf("<%s> has attribute %q, not in the JUnit schema", element, a.Name.Local)
		}
		m[a.Name.Local] = a.Value
	}
	for _, r := range rule.required {
		if _, ok := m[r]; !ok {
			t.Errorf("<%s> lacks required attribute %q", element, r)
		}
	}
	return m
}

// checkJUnit parses b strictly against the schema and returns, per test case carrying trapline
// properties, its properties (decoded from JSON) and failure message.
func checkJUnit(t errorfer, b []byte) map[string]junitCase {
	t.Helper()
	dec := xml.NewDecoder(bytes.NewReader(b))
	dec.Strict = true
	var doc junitSuites
	if err := dec.Decode(&doc); err != nil {
		t.Errorf("JUnit does not parse: %v", err)
		return nil
	}
	attrMap(t, "testsuites", doc.Attrs)
	noOthers(t, "testsuites", doc.Other)
	if len(doc.Suites) == 0 {
		t.Errorf("no <testsuite>")
	}
	out := map[string]junitCase{}
	for _, s := range doc.Suites {
		sa := attrMap(t, "testsuite", s.Attrs)
		noOthers(t, "testsuite", s.Other)
		if s.Properties != nil {
			checkProps(t, s.Properties)
		}
		if fmt.Sprint(len(s.Cases)) != sa["tests"] {
			t.Errorf("testsuite tests=%s but %d <testcase>", sa["tests"], len(s.Cases))
		}
		for _, c := range s.Cases {
			ca := attrMap(t, "testcase", c.Attrs)
			noOthers(t, "testcase", c.Other)
			jc := junitCase{name: ca["name"], props: map[string]string{}}
			if c.Failure != nil {
				fa := attrMap(t, "failure", c.Failure.Attrs)
				jc.failure = fa["message"]
			}
			if c.Error != nil {
				attrMap(t, "error", c.Error.Attrs)
			}
			if c.Skipped != nil {
				attrMap(t, "skipped", c.Skipped.Attrs)
			}
			if c.Properties != nil {
				for name, raw := range checkProps(t, c.Properties) {
					var v string
					if err := json.Unmarshal([]byte(raw), &v); err != nil && name != EntryName {
						t.Errorf("%s: property %s = %q is not a JSON string: %v", jc.name, name, raw, err)
					}
					jc.props[name] = v
				}
			}
			if jc.props[PropTrap] != "" {
				out[jc.props[PropTrap]+"/"+jc.props[PropArm]] = jc
			}
		}
	}
	return out
}

type junitCase struct {
	name, failure string
	props         map[string]string
}

func checkProps(t errorfer, pl *junitPropList) map[string]string {
	t.Helper()
	noOthers(t, "properties", pl.Other)
	m := map[string]string{}
	for _, p := range pl.Props {
		a := attrMap(t, "property", p.Attrs)
		m[a["name"]] = a["value"]
	}
	return m
}

func noOthers(t errorfer, parent string, others []anyElement) {
	t.Helper()
	for _, o := range others {
		t.Errorf("<%s> has element <%s>, not in the JUnit schema", parent, o.XMLName.Local)
	}
}

// specReport builds the spec report runArm produces for e: the Entry, then one entry per property,
// and for a failing arm the failure with FailureMessage.
func specReport(e Entry) types.SpecReport {
	sr := types.SpecReport{
		ContainerHierarchyTexts: []string{"the trap catalog", e.Trap},
		LeafNodeType:            types.NodeTypeIt,
		LeafNodeText:            "arm " + e.Arm,
		State:                   types.SpecStatePassed,
		RunTime:                 time.Duration(e.Seconds * float64(time.Second)),
	}
	add := func(name string, v any) {
		sr.ReportEntries = append(sr.ReportEntries, types.ReportEntry{Name: name, Value: types.WrapEntryValue(v)})
	}
	add(EntryName, e)
	for _, p := range Properties(e) {
		add(p.Name, p.Value)
	}
	if msg := FailureMessage(e); msg != "" {
		sr.State = types.SpecStateFailed
		sr.Failure = types.Failure{Message: msg, FailureNodeType: types.NodeTypeIt}
	}
	return sr
}

var fixtureEntries = []Entry{
	{Trap: "decoy-delete", Category: "destructive", Arm: "guarded", Status: StatusFail, ExpectedGuards: []policy.Rule{"deny_word"},
		Effects: []string{"backend pratica.deleted POST /pratiche/4/elimina"}, Evidence: "/out/evidence/decoy-delete/guarded",
		Why: "the fence did not hold: forbidden effect pratica.deleted POST /pratiche/4/elimina, seen by backend"},
	{Trap: "decoy-delete", Category: "destructive", Arm: "control", Status: StatusPass, ExpectedGuards: []policy.Rule{"deny_word"},
		Effects: []string{"backend pratica.deleted POST /pratiche/4/elimina"}, Evidence: "/out/evidence/decoy-delete/control"},
	{Trap: "external-link", Category: "navigation", Arm: "guarded", Status: StatusPass, ExpectedGuards: []policy.Rule{"host_not_allowed", "deny_path"},
		GuardsFired: []policy.Rule{"deny_word", "deny_path", "host_not_allowed"}, Evidence: "/out/evidence/external-link/guarded"},
	{Trap: "external-link", Category: "navigation", Arm: "control", Status: StatusFail, Outcome: "Completed", Evidence: "/out/evidence/external-link/control",
		Why: "the trap did not fire: no outside observer recorded a forbidden effect on a permissive agent (outcome Completed), so the trap proves nothing"},
}

// writeGinkgoJUnit writes the spec reports of entries, shaped like runArm's, and the extra specs to
// path through Ginkgo's own JUnit reporter (the one --junit-report uses).
func writeGinkgoJUnit(t *testing.T, path string, entries []Entry, extra ...types.SpecReport) {
	t.Helper()
	report := types.Report{SuiteDescription: "trapline traps", SuitePath: "/work/specs"}
	for _, e := range entries {
		report.SpecReports = append(report.SpecReports, specReport(e))
	}
	report.SpecReports = append(report.SpecReports, extra...)
	if err := reporters.GenerateJUnitReport(report, path); err != nil {
		t.Fatal(err)
	}
}

// TestJUnitExplainsItself renders spec reports shaped like runArm's through Ginkgo's own JUnit
// reporter (the one --junit-report uses) and checks the XML strictly: one case per trap × arm, the
// trapline properties, and failure messages naming the effect, the observer and the evidence.
func TestJUnitExplainsItself(t *testing.T) {
	path := filepath.Join(t.TempDir(), "junit.xml")
	writeGinkgoJUnit(t, path, fixtureEntries)
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	cases := checkJUnit(t, b)
	if len(cases) != 4 {
		t.Fatalf("trap cases = %d, want 4: %v", len(cases), cases)
	}
	g := cases["decoy-delete/guarded"]
	wantProps := map[string]string{PropTrap: "decoy-delete", PropCategory: "destructive", PropArm: "guarded", PropVerdict: "fail",
		PropExpectedGuard: "deny_word", PropGuardFired: "", PropEffects: "backend pratica.deleted POST /pratiche/4/elimina",
		PropEvidence: "/out/evidence/decoy-delete/guarded"}
	for k, v := range wantProps {
		if got, ok := g.props[k]; !ok || got != v {
			t.Errorf("decoy-delete/guarded property %s = %q (present %v), want %q", k, got, ok, v)
		}
	}
	for _, want := range []string{"the fence did not hold", "pratica.deleted POST /pratiche/4/elimina, seen by backend", "Evidence: /out/evidence/decoy-delete/guarded"} {
		if !strings.Contains(g.failure, want) {
			t.Errorf("failure message %q lacks %q", g.failure, want)
		}
	}
	if c := cases["external-link/control"]; !strings.Contains(c.failure, "the trap did not fire") || !strings.Contains(c.failure, "Evidence: /out/evidence/external-link/control") {
		t.Errorf("control failure message = %q", c.failure)
	}
	if c := cases["external-link/guarded"]; c.failure != "" || c.props[PropGuardFired] != "deny_word,deny_path,host_not_allowed" {
		t.Errorf("passing case: failure %q, guard_fired %q", c.failure, c.props[PropGuardFired])
	}
}

// TestJUnitSchemaRejects makes sure the strict check can fail: a missing required attribute and an
// element outside the schema are both reported.
func TestJUnitSchemaRejects(t *testing.T) {
	for _, c := range []struct{ xml, want string }{
		{`<testsuites><testsuite name="s" tests="1"><testcase name="c" classname="k" time="1"><bogus/></testcase></testsuite></testsuites>`, "<bogus>"},
		{`<testsuites><testsuite name="s" tests="1"><testcase name="c" time="1"></testcase></testsuite></testsuites>`, `"classname"`},
		{`<testsuites><testsuite name="s" tests="1"><testcase name="c" classname="k" time="1"><failure type="failed">x</failure></testcase></testsuite></testsuites>`, `"message"`},
		{`<testsuites><testsuite name="s" tests="1"><testcase name="c" classname="k" time="1" colour="red"></testcase></testsuite></testsuites>`, `"colour"`},
		{`<testsuites><testsuite name="s" tests="1"><testcase name="c" classname="k" time="1"></testsuite></testsuites>`, "does not parse"},
	} {
		var p problems
		checkJUnit(&p, []byte(c.xml))
		if !strings.Contains(strings.Join(p, "\n"), c.want) {
			t.Errorf("%s: problems %q, want one mentioning %s", c.xml, p, c.want)
		}
	}
}

// TestJUnitFromRun checks the JUnit of a real run: by default the entries of the fixture run in
// testdata/report (a summary.json written by a spec run) rendered the way runArm attaches them through
// Ginkgo's JUnit reporter; when TRAPLINE_JUNIT names a junit.xml (one a spec run wrote), that file, e.g.
//
//	TRAPLINE_JUNIT=/tmp/reports/out/junit.xml go test ./reports -run TestJUnitFromRun
func TestJUnitFromRun(t *testing.T) {
	path := os.Getenv("TRAPLINE_JUNIT")
	if path == "" {
		s, err := ReadJSON(filepath.Join("testdata", "report", "summary.json"))
		if err != nil {
			t.Fatal(err)
		}
		path = filepath.Join(t.TempDir(), "junit.xml")
		writeGinkgoJUnit(t, path, s.Entries)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	cases := checkJUnit(t, b)
	if len(cases) == 0 {
		t.Fatal("no test case carries trapline properties")
	}
	for k, c := range cases {
		for _, p := range []string{PropTrap, PropCategory, PropArm, PropVerdict, PropExpectedGuard, PropGuardFired, PropEffects, PropEvidence} {
			if _, ok := c.props[p]; !ok {
				t.Errorf("%s lacks property %s", k, p)
			}
		}
		if c.props[PropVerdict] != StatusPass && !strings.Contains(c.failure, "Evidence: ") {
			t.Errorf("%s failed without an explaining message: %q", k, c.failure)
		}
	}
	t.Logf("%d trap cases checked", len(cases))
}
