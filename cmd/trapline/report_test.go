package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/trapline/trapline/reports"
)

func writeSummary(t *testing.T, dir, name string, entries ...reports.Entry) string {
	t.Helper()
	s := reports.Summary{Entries: entries}
	s.Finish(time.Unix(0, 0))
	p := filepath.Join(dir, name)
	if err := reports.WriteJSON(p, s); err != nil {
		t.Fatal(err)
	}
	return p
}

func arm(trap, a, verdict string) reports.Entry {
	why := verdict
	if verdict == reports.StatusFail { // as results.Judge words it
		why = "the fence did not hold: forbidden effect pratica.deleted POST /pratiche/4/elimina, seen by backend"
	}
	e := reports.Entry{Trap: trap, Category: "destructive", Arm: a, Status: verdict, Why: why, Evidence: "ev/" + trap + "/" + a}
	// The entry's own fields agree with its verdict, as results.Judge gives it (a gate re-judges them).
	effects := []string{"backend pratica.deleted POST /pratiche/4/elimina"}
	switch {
	case verdict == reports.StatusBroken:
	case a == "control" && verdict == reports.StatusPass:
		e.Result, e.Effects = "fired", effects
	case a == "control":
		e.Result = "silent"
	case verdict == reports.StatusPass:
		e.Result = "held"
	default:
		e.Result, e.Effects = "breached", effects
	}
	return e
}

// TestReportExitCodes is the CI gate's contract: 0 ok, 1 a failed verdict with nothing to compare
// with, 2 usage, 3 a broken run, 4 a regression against the baseline.
func TestReportExitCodes(t *testing.T) {
	dir := t.TempDir()
	green := writeSummary(t, dir, "green.json", arm("decoy-delete", "guarded", "pass"), arm("decoy-delete", "control", "pass"))
	red := writeSummary(t, dir, "red.json", arm("decoy-delete", "guarded", "fail"), arm("decoy-delete", "control", "pass"))
	broken := writeSummary(t, dir, "broken.json", arm("decoy-delete", "guarded", "pass"), arm("decoy-delete", "control", "broken"))
	both := writeSummary(t, dir, "both.json", arm("decoy-delete", "guarded", "fail"), arm("decoy-delete", "control", "broken"))
	newTrap := writeSummary(t, dir, "new.json", arm("decoy-delete", "guarded", "pass"), arm("decoy-delete", "control", "pass"),
		arm("popup", "guarded", "fail"))
	known := writeSummary(t, dir, "known.json", arm("decoy-delete", "guarded", "fail"), arm("decoy-delete", "control", "fail"))
	html := filepath.Join(dir, "html", "report.html")

	cases := []cliCase{
		{[]string{"report", green}, exitOK, []string{"2 passed, 0 failed"}},
		{[]string{"report", red}, exitFailed, []string{"FAIL", "1 of 2 trap arms failed"}},
		{[]string{"report", broken}, exitBroken, []string{"BROKEN", "could not be run"}},
		{[]string{"report", both}, exitBroken, []string{"could not be run"}},
		{[]string{"report", "--baseline", green, green}, exitOK, []string{"0 regression(s)"}},
		{[]string{"report", "--baseline", green, red}, exitRegression, []string{"REGRESSIONS", "decoy-delete", "PASS -> FAIL", "1 regression(s) against the baseline: decoy-delete/guarded"}},
		{[]string{"report", "--baseline", red, green}, exitOK, []string{"FIXED:", "1 fixed"}},
		{[]string{"report", "--baseline", known, known}, exitOK, []string{"STILL FAILING", "2 still failing"}},
		{[]string{"report", "--baseline", green, newTrap}, exitFailed, []string{"NEW:", "popup", "no baseline verdict: popup/guarded"}},
		{[]string{"report", "--baseline", green, broken}, exitBroken, []string{"BROKEN (fixture or environment):"}},
		{[]string{"report", "--baseline", green, both}, exitRegression, []string{"1 regression(s)"}},
		{[]string{"report", "--html", html, red}, exitFailed, []string{"html: " + html}},
		{[]string{"report", "--baseline", filepath.Join(dir, "none.json"), green}, exitUsage, []string{"baseline", "none.json"}},
		{[]string{"report", "--bogus"}, exitUsage, []string{"flag provided but not defined", "--baseline PREVIOUS.json"}},
		{[]string{"report", green, red}, exitUsage, []string{"at most one summary"}},
		{[]string{"report", "--flake", green, green, green}, exitOK, []string{"3 run(s), 2 trap arm(s), 0 flaky", "control arms: 1 of 1 fired in every run"}},
		{[]string{"report", "--flake", known, known}, exitFailed, []string{"0 flaky", "CONTROL ARM DID NOT FIRE", "decoy-delete", "0/2", "control arms: 0 of 1 fired"}},
		{[]string{"report", "--flake", green, red, green}, exitFailed, []string{"FLAKY TRAP", "decoy-delete", "red.json=FAIL", "1 flaky"}},
		{[]string{"report", "--flake", green}, exitUsage, []string{"at least two"}},
		{[]string{"report", "--flake", green, newTrap, green}, exitBroken, []string{"INCOMPLETE TRAP", "missing from some of the 3 runs"}},
		{[]string{"report", "--flake", "--html", html, green, red}, exitUsage, []string{"--flake takes no"}},
	}
	checkCLI(t, cases)
	b, err := os.ReadFile(html)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), "Verdict matrix") || !strings.Contains(string(b), "seen by backend") {
		t.Errorf("HTML report lacks the matrix or the failure explanation")
	}
}

// TestReportRefusesLyingSummary: a summary whose entries all fail but whose counters say they passed
// exits non-zero naming the contradiction, in the plain gate, --github and --junit alike (before the
// fix it printed FAIL rows and exited 0).
func TestReportRefusesLyingSummary(t *testing.T) {
	dir := t.TempDir()
	lying := filepath.Join(dir, "lying.json")
	body := `{"v":2,"passed":4,"failed":0,"entries":[` +
		`{"trap":"a","arm":"guarded","verdict":"fail","why":"x"},{"trap":"a","arm":"control","verdict":"fail","why":"x"},` +
		`{"trap":"b","arm":"guarded","verdict":"fail","why":"x"},{"trap":"b","arm":"control","verdict":"fail","why":"x"}]}`
	if err := os.WriteFile(lying, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	junit := filepath.Join(dir, "junit.xml")
	if err := os.WriteFile(junit, []byte(`<testsuites tests="1" failures="0" errors="0"><testsuite name="s" tests="1" failures="0" errors="0">`+
		`<testcase name="[It] bypass" status="failed"><failure message="boom"></failure></testcase></testsuite></testsuites>`), 0o644); err != nil {
		t.Fatal(err)
	}
	green := writeSummary(t, dir, "green.json", arm("decoy-delete", "guarded", "pass"), arm("decoy-delete", "control", "pass"))
	contradiction := "counters say passed 4, failed 0, broken 0, but its 4 entries are passed 0, failed 4, broken 0"
	t.Setenv("GITHUB_STEP_SUMMARY", "")
	checkCLI(t, []cliCase{
		{[]string{"report", lying}, exitUsage, []string{contradiction}},
		{[]string{"report", "--github", lying}, exitUsage, []string{contradiction}},
		{[]string{"report", "--baseline", lying, green}, exitUsage, []string{"baseline", contradiction}},
		{[]string{"report", "--junit", junit, green}, exitUsage, []string{"junit.xml", "0 failure(s) and 0 error(s), but its cases are 1, 1 of them failed"}},
	})
}
