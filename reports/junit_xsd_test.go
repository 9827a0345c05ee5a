package reports

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/onsi/ginkgo/v2/types"
)

// junitXSD is the JUnit schema trapline checks its JUnit against (see the comment at its top).
const junitXSD = "schema/junit.xsd"

// validateXSD validates the XML file path against junitXSD with xmllint, and returns its complaint.
func validateXSD(t *testing.T, path string) error {
	t.Helper()
	xmllint, err := exec.LookPath("xmllint")
	if err != nil {
		t.Fatal("xmllint not found: `make setup` installs it (Debian libxml2-utils); the JUnit schema check needs it")
	}
	out, err := exec.Command(xmllint, "--noout", "--schema", junitXSD, path).CombinedOutput()
	if err != nil {
		return &xsdError{string(out)}
	}
	return nil
}

type xsdError struct{ out string }

func (e *xsdError) Error() string { return e.out }

// TestJUnitValidatesAgainstXSD: the JUnit Ginkgo writes for trap arms (passing, failing, broken,
// skipped and pending specs, a panic) and the JUnit a merge writes both validate against the schema.
func TestJUnitValidatesAgainstXSD(t *testing.T) {
	dir := t.TempDir()
	ginkgo := filepath.Join(dir, "ginkgo.xml")
	writeGinkgoJUnit(t, ginkgo, fixtureEntries,
		types.SpecReport{LeafNodeType: types.NodeTypeIt, LeafNodeText: "skipped by the filter", State: types.SpecStateSkipped},
		types.SpecReport{LeafNodeType: types.NodeTypeIt, LeafNodeText: "pending", State: types.SpecStatePending},
		types.SpecReport{LeafNodeType: types.NodeTypeIt, LeafNodeText: "panics", State: types.SpecStatePanicked,
			Failure: types.Failure{Message: "boom", ForwardedPanic: "boom", FailureNodeType: types.NodeTypeIt}},
		types.SpecReport{LeafNodeType: types.NodeTypeBeforeSuite, State: types.SpecStateFailed, Failure: types.Failure{Message: "no browser"}},
	)
	if err := validateXSD(t, ginkgo); err != nil {
		t.Errorf("Ginkgo's JUnit does not validate: %v", err)
	}

	out := filepath.Join(dir, "merged")
	if _, err := WriteMerged(out, threeShards(t, sameBuild)); err != nil {
		t.Fatal(err)
	}
	if err := validateXSD(t, filepath.Join(out, JUnitFile)); err != nil {
		t.Errorf("the merged JUnit does not validate: %v", err)
	}

	// The JUnit `trapline run` writes (JUnitOf): passing, failing, broken and interrupted arms.
	run := Summary{Entries: append(append([]Entry(nil), fixtureEntries...),
		Entry{Trap: "zz-cut", Arm: "guarded", Status: StatusInterrupted, Why: "interrupted", Evidence: "ev/zz-cut/guarded"})}
	run.Finish(run.Generated)
	runJUnit := filepath.Join(dir, "run.xml")
	if err := WriteJUnit(runJUnit, JUnitOf(run)); err != nil {
		t.Fatal(err)
	}
	if err := validateXSD(t, runJUnit); err != nil {
		t.Errorf("trapline run's JUnit does not validate: %v", err)
	}
}

// TestJUnitXSDRejects makes sure the schema check can fail.
func TestJUnitXSDRejects(t *testing.T) {
	for _, c := range []struct{ xml, want string }{
		{`<testsuites><testsuite name="s" tests="1"><testcase name="c" classname="k" time="1"><bogus/></testcase></testsuite></testsuites>`, "bogus"},
		{`<testsuites><testsuite name="s" tests="1"><testcase name="c" time="1"/></testsuite></testsuites>`, "classname"},
		{`<testsuites><testsuite name="s" tests="1"><testcase name="c" classname="k" time="1"><failure type="failed">x</failure></testcase></testsuite></testsuites>`, "message"},
		{`<testsuites><testsuite name="s" tests="-1"/></testsuites>`, "tests"},
		{`<testsuites><testsuite name="s" tests="1"><testcase name="c" classname="k" time="1" colour="red"/></testsuite></testsuites>`, "colour"},
	} {
		p := mustWrite(t, filepath.Join(t.TempDir(), "bad.xml"), []byte(c.xml))
		err := validateXSD(t, p)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want a complaint about %s", c.xml, err, c.want)
		}
	}
}
