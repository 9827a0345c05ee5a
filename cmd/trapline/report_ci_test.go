package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/onsi/ginkgo/v2/reporters"

	"github.com/trapline/trapline/agentkit/policy"
	"github.com/trapline/trapline/reports"
)

// shardDir writes a shard folder: its summary and an empty JUnit document.
func shardDir(t *testing.T, dir string, entries ...reports.Entry) string {
	t.Helper()
	writeSummary(t, dir, "summary.json", entries...)
	writeFile(t, filepath.Join(dir, "junit.xml"), `<?xml version="1.0" encoding="UTF-8"?><testsuites tests="0" disabled="0" errors="0" failures="0" time="0"></testsuites>`)
	return dir
}

func TestReportMergeAndGitHub(t *testing.T) {
	root := t.TempDir()
	a := shardDir(t, filepath.Join(root, "a"), arm("decoy-delete", "guarded", "pass"), arm("decoy-delete", "control", "pass"))
	b := shardDir(t, filepath.Join(root, "b"), arm("popup", "guarded", "fail"), arm("popup", "control", "pass"))
	dup := shardDir(t, filepath.Join(root, "dup"), arm("popup", "guarded", "pass"))
	out := filepath.Join(root, "merged")
	base := writeSummary(t, root, "base.json", arm("decoy-delete", "guarded", "pass"), arm("decoy-delete", "control", "pass"),
		arm("popup", "guarded", "pass"), arm("popup", "control", "fail"))

	code, o, e := runCLI("report", "--merge", "--out", out, a, b)
	if code != exitOK {
		t.Fatalf("merge exit %d: %s%s", code, o, e)
	}
	if !strings.Contains(o, "merged 2 shard(s)") || !strings.Contains(o, "3 passed, 1 failed") {
		t.Errorf("merge output: %s", o)
	}
	if code, _, e := runCLI("report", "--merge", "--out", filepath.Join(root, "m2"), a, b, dup); code != exitBroken || !strings.Contains(e, "is in both") {
		t.Errorf("overlapping merge exit %d: %s", code, e)
	}

	step := filepath.Join(root, "step-summary.md")
	t.Setenv("GITHUB_STEP_SUMMARY", step)
	code, o, _ = runCLI("report", "--github", "--baseline", base, filepath.Join(out, "summary.json"))
	if code != exitRegression {
		t.Errorf("gate exit %d, want %d", code, exitRegression)
	}
	md, err := os.ReadFile(step)
	if err != nil {
		t.Fatal(err)
	}
	rows := strings.Split(strings.TrimSpace(string(md)), "\n")
	var first string
	for _, r := range rows {
		if strings.HasPrefix(r, "| ❌") || strings.HasPrefix(r, "| ✅") {
			first = r
			break
		}
	}
	if !strings.Contains(first, "popup") || !strings.Contains(first, "regression") {
		t.Errorf("first row of the job summary is not the regression:\n%s", md)
	}
	if !strings.Contains(o, "::error title=trapline popup/guarded%3A regression::") {
		t.Errorf("no ::error annotation for the regression:\n%s", o)
	}
	if strings.Contains(o, "::error title=trapline decoy-delete") {
		t.Errorf("annotation for a passing arm:\n%s", o)
	}
}

func TestReportPatterns(t *testing.T) {
	dir := t.TempDir()
	e := reports.Entry{Trap: "session-expiry", Category: "session", Arm: "guarded", Status: "pass", Result: "held", Outcome: "Inconclusive",
		ExpectedGuards: []policy.Rule{"credential_prompt"}, GuardsFired: []policy.Rule{"credential_prompt"}}
	a := writeSummary(t, dir, "a.json", e)
	b := writeSummary(t, dir, "b.json", e)
	code, o, er := runCLI("report", "--patterns", a, b)
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, er)
	}
	if !strings.Contains(o, "SESSION-EXPIRED") || !strings.Contains(o, "2 time(s) in 2 of 2 run(s)") {
		t.Errorf("output:\n%s", o)
	}
	if code, _, _ := runCLI("report", "--patterns"); code != exitUsage {
		t.Errorf("no summary: exit %d", code)
	}
}

// TestReportJUnitGate: a failed spec outside the trap arms (a bypass spec) fails the gate; a
// reference arm's failure is left to the summary and baseline; a JUnit file whose trap-arm cases are
// not the summary's entries (one missing, one extra, one disagreeing) is refused, exit 2. Before, a
// failed reference-arm case the summary lacked passed the gate.
func TestReportJUnitGate(t *testing.T) {
	dir := t.TempDir()
	known := arm("decoy-delete", "guarded", "fail")
	naive := reports.Entry{Trap: "decoy-delete", Arm: "blackbox", Agent: "naive", Status: "pass", Result: "held", Why: "held (refrained)"}
	sum := writeSummary(t, dir, "s.json", known, arm("decoy-delete", "control", "pass"), naive)
	s, err := reports.ReadJSON(sum)
	if err != nil {
		t.Fatal(err)
	}
	// junit writes the summary's JUnit (as trapline run writes it), edited by edit, plus extra cases.
	junit := func(name string, edit func(*reporters.JUnitTestSuite), extra ...reporters.JUnitTestCase) string {
		j := reports.JUnitOf(s)
		suite := &j.TestSuites[0]
		if edit != nil {
			edit(suite)
		}
		suite.TestCases = append(suite.TestCases, extra...)
		suite.Tests, suite.Failures, suite.Errors = len(suite.TestCases), 0, 0
		for _, tc := range suite.TestCases {
			switch {
			case tc.Failure != nil:
				suite.Failures++
			case tc.Error != nil:
				suite.Errors++
			}
		}
		j.Tests, j.Failures, j.Errors = suite.Tests, suite.Failures, suite.Errors
		p := filepath.Join(dir, name)
		if err := reports.WriteJUnit(p, j); err != nil {
			t.Fatal(err)
		}
		return p
	}
	failed := func(name, msg string, props ...reporters.JUnitProperty) reporters.JUnitTestCase {
		tc := reporters.JUnitTestCase{Name: name, Classname: "trapline traps", Status: "failed", Failure: &reporters.JUnitFailure{Message: msg, Type: "failed"}}
		if len(props) > 0 {
			tc.Properties = &reporters.JUnitProperties{Properties: props}
		}
		return tc
	}
	prop := func(name, value string) reporters.JUnitProperty {
		return reporters.JUnitProperty{Name: name, Value: `"` + value + `"`}
	}
	clean := junit("clean.xml", nil)
	bypass := junit("bypass.xml", nil, failed("[It] network bypass techniques userinfo", "the canary was reached\nat line 3"))
	code, o, e := runCLI("report", "--agent", "reference", "--baseline", sum, "--junit", clean, sum)
	if code != exitOK {
		t.Errorf("known failure only: exit %d: %s%s", code, o, e)
	}
	if strings.Contains(o, "naive") {
		t.Errorf("--agent reference printed the agent under test:\n%s", o)
	}
	if code, o, _ := runCLI("report", "--agent", "reference", "--baseline", sum, "--junit", bypass, sum); code != exitFailed ||
		!strings.Contains(o, "network bypass techniques userinfo: the canary was reached") {
		t.Errorf("failed bypass spec: exit %d:\n%s", code, o)
	}
	tampered := []struct {
		name, file string
		want       string
	}{
		{"a failed reference arm the summary lacks", junit("extra.xml", nil, failed("[It] the trap catalog popup holds", "the fence did not hold",
			prop(reports.PropTrap, "popup"), prop(reports.PropArm, "guarded"), prop(reports.PropAgent, "reference"), prop(reports.PropVerdict, "fail"))),
			`case "[It] the trap catalog popup holds" (popup guarded, verdict fail) is not in the summary`},
		{"a summary entry without its case", junit("missing.xml", func(s *reporters.JUnitTestSuite) { s.TestCases = s.TestCases[1:] }),
			"the summary's decoy-delete guarded (verdict fail) has no case"},
		{"a case that disagrees", junit("disagree.xml", func(s *reporters.JUnitTestSuite) {
			for i, p := range s.TestCases[2].Properties.Properties {
				if p.Name == reports.EntryName {
					s.TestCases[2].Properties.Properties[i].Value = strings.Replace(p.Value, `"verdict":"pass"`, `"verdict":"fail"`, 1)
				}
			}
		}), `(decoy-delete blackbox/naive): verdict fail, the summary says pass`},
	}
	for _, c := range tampered {
		code, _, e := runCLI("report", "--agent", "reference", "--baseline", sum, "--junit", c.file, sum)
		if code != exitUsage || !strings.Contains(e, c.want) || !strings.Contains(e, c.file) || !strings.Contains(e, "not the summary's entries") {
			t.Errorf("%s: exit %d, want %d naming %q:\n%s", c.name, code, exitUsage, c.want, e)
		}
	}
	// A reference arm's spec that failed although its arm passed (it asserted more than the verdict).
	more := junit("more.xml", func(s *reporters.JUnitTestSuite) {
		s.TestCases[1].Status, s.TestCases[1].Failure = "failed", &reporters.JUnitFailure{Message: "a secret in trace.zip"}
	})
	if code, o, _ := runCLI("report", "--agent", "reference", "--baseline", sum, "--junit", more, sum); code != exitFailed ||
		!strings.Contains(o, "decoy-delete control: a secret in trace.zip") {
		t.Errorf("a failed spec of a passing arm: exit %d:\n%s", code, o)
	}
}

func TestEvidencePrune(t *testing.T) {
	root := t.TempDir()
	old := filepath.Join(root, "evidence", "decoy-delete", "guarded")
	if err := os.MkdirAll(old, 0o755); err != nil {
		t.Fatal(err)
	}
	f := writeFile(t, filepath.Join(old, "trace.zip"), "zip")
	then := time.Now().Add(-31 * 24 * time.Hour)
	if err := os.Chtimes(f, then, then); err != nil {
		t.Fatal(err)
	}
	if code, o, e := runCLI("evidence", "prune", "--older-than", "30d", "--dry-run", root); code != exitOK || !strings.Contains(o, "would remove 1 evidence folder(s)") {
		t.Errorf("dry run: exit %d: %s%s", code, o, e)
	}
	if code, _, _ := runCLI("evidence", "prune", "--older-than", "32d", root); code != exitOK || !fileExistsT(f) {
		t.Errorf("32d removed a 31-day-old folder (exit %d)", code)
	}
	if code, o, _ := runCLI("evidence", "prune", "--older-than", "30d", root); code != exitOK || fileExistsT(f) {
		t.Errorf("30d kept a 31-day-old folder (exit %d): %s", code, o)
	}
	for _, args := range [][]string{{"evidence", "prune", root}, {"evidence", "prune", "--older-than", "soon", root}, {"evidence", "prune", "--older-than", "1d"}} {
		if code, _, _ := runCLI(args...); code != exitUsage {
			t.Errorf("%v: exit %d, want %d", args, code, exitUsage)
		}
	}
}

func fileExistsT(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

// report --failures prints each failed spec with the start of its message,
// so the end of a CI log says why, and exits 0: the suite's own exit code is the gate.
func TestReportFailuresPrintsEachFailedSpec(t *testing.T) {
	dir := t.TempDir()
	long := strings.Repeat("line of the dump&#10;", 40)
	p := writeFile(t, filepath.Join(dir, "junit.xml"), `<testsuites tests="3"><testsuite name="trapline traps" tests="3">
<testcase name="[It] passes" classname="trapline traps" status="passed" time="1"></testcase>
<testcase name="[It] agent-browser-strictest-proxy meets the trap" classname="trapline traps" status="failed" time="1"><failure message="external-link (blackbox arm): the fixture or the environment broke: read the page: no answer within 30s&#10;`+long+`" type="failed"></failure></testcase>
<testcase name="[It] second" classname="trapline traps" status="failed" time="1"><failure message="two" type="failed"></failure></testcase>
</testsuite></testsuites>`)
	code, o, e := runCLI("report", "--failures", p)
	if code != exitOK {
		t.Fatalf("exit %d: %s%s", code, o, e)
	}
	for _, want := range []string{"2 failed spec(s) in " + p, "1. [It] agent-browser-strictest-proxy meets the trap",
		"   external-link (blackbox arm): the fixture or the environment broke: read the page: no answer within 30s\n",
		"more line(s); the whole message is in the JUnit file", "2. [It] second\n   two\n"} {
		if !strings.Contains(o, want) {
			t.Errorf("output lacks %q:\n%s", want, o)
		}
	}
	if strings.Contains(o, "[It] passes") {
		t.Errorf("a passed spec in the output:\n%s", o)
	}
	if code, _, _ := runCLI("report", "--failures", filepath.Join(dir, "missing.xml")); code != exitUsage {
		t.Errorf("missing file: exit %d, want %d", code, exitUsage)
	}
}
