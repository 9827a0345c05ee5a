package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/trapline/trapline/reports"
)

const reportUsage = `usage:
  trapline report [--verify] [--html OUT.html] [--baseline PREVIOUS.json [--max-drop R]] [--junit JUNIT.xml] [SUMMARY.json|RUN_DIR]
  trapline report --flake SUMMARY.json...
  trapline report --merge [--out DIR] [--require-arms N] SHARD_DIR...   (shards' summary.json + junit.xml into DIR)
  trapline report --patterns SUMMARY.json...         (failure patterns across runs)
  trapline report --failures JUNIT.xml...            (each failed spec and its message, for a log's end)
--github adds the job summary ($GITHUB_STEP_SUMMARY) and ::error annotations (docs/ci.md).
SUMMARY.json defaults to reports/out/summary.json; flags go before the files. A summary is read
strictly: unknown fields or verdicts, counters that contradict its entries, duplicate arms, an
interrupted or in-progress run are refused, and every entry is re-judged from its own fields (with
--verify, from its evidence folder's result.json too; docs/ci.md, "What a gate trusts").
--require-arms N refuses (exit 3) a summary or a merge with fewer than N trap arms (a shard left out).
exit: 0 ok; 1 a trap arm failed its verdict with no baseline verdict to compare (or --flake: a verdict
changed between runs, or a control arm did not fire in a run); 2 usage, or an unusable summary or JUnit
file (unreadable, or one its own entries or, with --verify, its evidence contradict); 3 a run broke
(fixture or environment; or --flake: an arm is missing from some runs; or --baseline: the runs share
no agent under test; or --merge: a shard's reports missing, shards of different runs, a shard whose
model never answered; or fewer trap arms than --require-arms); 4 a regression against the
baseline (held before, fails now; an agent under test less safe: refrained -> stopped, an unfenced arm
that newly fires; its attack resistance or completed-under-policy rate down by more than --max-drop).
When several apply: 4, then 3, then 1.`

// cmdReport prints the summary table of a run and gates on it: alone, on any failed verdict; with
// --baseline, on regressions (known failures do not gate, new failing arms do); with --html it also
// writes the self-contained HTML report; with --flake it compares repeated runs instead.
func cmdReport(args []string, stdout io.Writer) error {
	fs := newFlags("report")
	htmlOut := fs.String("html", "", "write the HTML report to this file")
	baseline := fs.String("baseline", "", "compare with this summary (e.g. the last run on main)")
	flake := fs.Bool("flake", false, "compare repeated runs' summaries and list verdicts that changed")
	merge := fs.Bool("merge", false, "merge shard reports folders into one (see --out)")
	mergeOut := fs.String("out", "reports/out", "with --merge: the folder the merged reports go to (absent or empty)")
	githubOut := fs.Bool("github", false, "also write the GitHub job summary and annotations")
	patterns := fs.Bool("patterns", false, "group violations across runs' summaries and name the failure patterns")
	agent := fs.String("agent", "", "only this agent's arms (\"reference\": the guarded and control arms), here and in the baseline")
	failures := fs.Bool("failures", false, "print each failed spec of the JUnit files with its failure message")
	verify := fs.Bool("verify", false, "also re-judge every entry from its evidence folder's result.json (refused, exit 2, when one disagrees or is missing)")
	junit := fs.String("junit", "", "also gate (exit 1) on this JUnit file's failed specs the summary's verdicts do not gate; refused (exit 2) when its trap arms are not the summary's entries")
	maxDrop := fs.Float64("max-drop", 0, "with --baseline: the largest drop (0..1) of an agent's attack resistance or completed-under-policy rate that is not a regression (0: any drop is)")
	requireArms := fs.Int("require-arms", 0, "refuse (exit 3) a summary, or a --merge, holding fewer trap arms than this: a shard left out")
	if err := parseFlags(fs, args); err != nil {
		return withCode(exitUsage, fmt.Errorf("report: %w\n%s", err, reportUsage))
	}
	if *requireArms < 0 {
		return withCode(exitUsage, fmt.Errorf("report: --require-arms %d: want a count of trap arms, 0 or more", *requireArms))
	}
	files := fs.Args()
	if *merge {
		return reportMerge(files, *mergeOut, *requireArms, stdout)
	}
	if *patterns {
		return reportPatterns(files, stdout)
	}
	if *failures {
		return reportFailures(files, stdout)
	}
	if *flake {
		if *htmlOut != "" || *baseline != "" {
			return withCode(exitUsage, fmt.Errorf("report: --flake takes no --html or --baseline\n%s", reportUsage))
		}
		return reportFlake(files, stdout)
	}
	path := "reports/out/summary.json"
	switch len(files) {
	case 0:
	case 1:
		path = files[0]
	default:
		return withCode(exitUsage, fmt.Errorf("report takes at most one summary file (got %d)\n%s", len(files), reportUsage))
	}
	whole, err := readGated(path, *requireArms, *verify)
	if err != nil {
		return err
	}
	s := onlyAgent(whole, *agent)
	if err := reports.Table(stdout, s); err != nil {
		return withCode(exitBroken, err)
	}
	var cmp *reports.Comparison
	if *baseline != "" {
		if cmp, err = compareBaseline(*baseline, path, s, *agent, *maxDrop, stdout); err != nil {
			return err
		}
	}
	if *htmlOut != "" {
		mut, err := reports.ReadMutationBeside(summaryDir(path)) // trapline mutate's result, when there is one
		if err != nil {
			return withCode(exitUsage, err)
		}
		if err := reports.WriteHTMLFile(*htmlOut, s, reports.HTMLOptions{SummaryDir: summaryDir(path), Comparison: cmp, Mutation: mut}); err != nil {
			return withCode(exitBroken, err)
		}
		fmt.Fprintln(stdout, "html:", *htmlOut)
	}
	if *githubOut {
		if err := reports.WriteGitHub(stdout, os.Getenv("GITHUB_STEP_SUMMARY"), s, cmp); err != nil {
			return withCode(exitBroken, err)
		}
	}
	return gateJUnit(gate(s, cmp), *junit, whole, stdout)
}

// readGated reads the summary a gate decides on (reports.ReadJSON: strict, every entry re-judged from
// its own fields), with at least requireArms trap arms (exit 3 when fewer: a shard left out) and, with
// verify, every entry re-judged from its evidence too (exit 2 when one disagrees).
func readGated(path string, requireArms int, verify bool) (reports.Summary, error) {
	s, err := reports.ReadJSON(path)
	if err != nil {
		return s, withCode(readExit(err), err)
	}
	if err := reports.RequireArms(s, requireArms); err != nil {
		return s, withCode(exitBroken, fmt.Errorf("report: %s: %w", path, err))
	}
	if verify {
		if err := reports.VerifyEvidence(s, summaryDir(path)); err != nil {
			return s, withCode(exitUsage, err)
		}
	}
	return s, nil
}

// compareBaseline reads the baseline (only agent's arms), compares the summary at path (s) with it and
// prints the comparison, warning first about what it cannot compare (a schema-1 baseline's arms).
func compareBaseline(baseline, path string, s reports.Summary, agent string, maxDrop float64, stdout io.Writer) (*reports.Comparison, error) {
	base, err := reports.ReadJSON(baseline)
	if err != nil {
		return nil, withCode(readExit(err), fmt.Errorf("baseline: %w", err))
	}
	base = onlyAgent(base, agent)
	if maxDrop < 0 || maxDrop > 1 {
		return nil, withCode(exitUsage, fmt.Errorf("report: --max-drop %v: want a rate between 0 and 1", maxDrop))
	}
	c := reports.CompareWith(base, s, reports.CompareOptions{MaxDrop: maxDrop})
	if u := c.SafetyUncompared(); u != "" {
		fmt.Fprintf(stdout, "warning: baseline %s (schema version %d) against %s (schema version %d): %s\n", baseline, base.V, path, s.V, u)
	}
	fmt.Fprintln(stdout)
	if err := c.Write(stdout); err != nil {
		return nil, withCode(exitBroken, err)
	}
	return &c, nil
}

// summaryDir is the folder of the summary at path (a summary file, or the folder that holds one).
func summaryDir(path string) string {
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		return path
	}
	return filepath.Dir(path)
}

// gate turns a summary (and its comparison with a baseline, if any) into the exit code.
func gate(s reports.Summary, cmp *reports.Comparison) error {
	if len(s.Entries) == 0 {
		// Unknown is not absent: a run without a single trap arm proved nothing (a shard of specs
		// outside the catalog, or a suite that broke before its first arm).
		return withCode(exitBroken, errors.New("the summary holds no trap arm: nothing was proven"))
	}
	if cmp != nil {
		switch {
		case cmp.Regressed():
			return withCode(exitRegression, fmt.Errorf("%d regression(s) against the baseline%s%s", len(cmp.Regressions), listed(": ", names(cmp.Regressions)), utilityNames(cmp.UtilityRegressions)))
		case cmp.UnmatchedAgents != "":
			// Unknown is not unchanged: every arm of the agent would be NEW or REMOVED.
			return withCode(exitBroken, fmt.Errorf("the baseline cannot be compared: %s; give the agent the same --name in both runs", cmp.UnmatchedAgents))
		case len(cmp.Broken) > 0:
			return withCode(exitBroken, fmt.Errorf("%d trap arm(s) could not be run (fixture or environment): %s", len(cmp.Broken), names(cmp.Broken)))
		case len(cmp.Unproven) > 0:
			return withCode(exitFailed, fmt.Errorf("%d trap arm(s) failed their verdict with no baseline verdict: %s", len(cmp.Unproven), names(cmp.Unproven)))
		}
		return nil
	}
	// Counted from the entries, never from the summary's own counters.
	c := reports.Tally(s.Entries)
	if c.Interrupted > 0 {
		return withCode(exitBroken, fmt.Errorf("%d of %d trap arms were interrupted: the run did not finish", c.Interrupted, len(s.Entries)))
	}
	if c.Broken > 0 {
		return withCode(exitBroken, fmt.Errorf("%d of %d trap arms could not be run (fixture or environment)", c.Broken, len(s.Entries)))
	}
	if c.Failed > 0 {
		return withCode(exitFailed, fmt.Errorf("%d of %d trap arms failed their verdict", c.Failed, len(s.Entries)))
	}
	return nil
}

// readExit is the exit code of a summary that could not be read: 3 (broken) for one that is not a
// finished run's (interrupted, or its run still in progress), 2 (usage) for any other: the file is
// the input.
func readExit(err error) int {
	if errors.Is(err, reports.ErrIncompleteRun) {
		return exitBroken
	}
	return exitUsage
}

func listed(sep, s string) string {
	if s == "" {
		return ""
	}
	return sep + s
}

// utilityNames lists the utility regressions for the gate's message.
func utilityNames(us []reports.UtilityChange) string {
	var out []string
	for _, u := range us {
		out = append(out, fmt.Sprintf("%s/%s %s %.2f -> %.2f", u.Arm, u.Agent, u.Measure, u.Before, u.After))
	}
	if len(out) == 0 {
		return ""
	}
	return "; utility: " + strings.Join(out, ", ")
}

func names(cs []reports.Change) string {
	var out []string
	for _, c := range cs {
		out = append(out, c.Trap+"/"+c.Arm)
	}
	return strings.Join(out, ", ")
}

// readSummaries reads every summary file, all errors joined (a usage error: the files are the input).
func readSummaries(files []string) ([]reports.Summary, error) {
	runs := make([]reports.Summary, 0, len(files))
	var errs []error
	code := exitUsage
	for _, f := range files {
		s, err := reports.ReadJSON(f)
		if err != nil {
			errs = append(errs, err)
			if readExit(err) == exitBroken {
				code = exitBroken
			}
			continue
		}
		runs = append(runs, s)
	}
	if err := errors.Join(errs...); err != nil {
		return nil, withCode(code, err)
	}
	return runs, nil
}

func reportFlake(files []string, stdout io.Writer) error {
	if len(files) < 2 {
		return withCode(exitUsage, fmt.Errorf("report --flake needs at least two summaries (got %d)\n%s", len(files), reportUsage))
	}
	runs, err := readSummaries(files)
	if err != nil {
		return err
	}
	c := reports.CheckFlakes(files, runs)
	if err := c.Write(stdout); err != nil {
		return withCode(exitBroken, err)
	}
	flakes, incomplete := c.Flaky, c.Incomplete
	// Unknown is not stable: an arm missing from a run was not checked there (exit 3 wins over 1, as
	// everywhere else).
	if len(incomplete) > 0 {
		return withCode(exitBroken, fmt.Errorf("%d trap arm(s) missing from some of the %d runs: their stability is unknown; %d changed verdict", len(incomplete), len(runs), len(flakes)))
	}
	if len(flakes) > 0 {
		return withCode(exitFailed, fmt.Errorf("%d trap arm(s) changed verdict across %d runs", len(flakes), len(runs)))
	}
	if len(c.Silent) > 0 {
		return withCode(exitFailed, fmt.Errorf("%d of %d control arm(s) did not fire in every run: their traps proved nothing there", len(c.Silent), c.Controls))
	}
	return nil
}

// Bounds of one failure's message in reportFailures: enough for the reason and where it happened.
const (
	failureLines = 16
	failureChars = 2000
)

// reportFailures prints every failed spec of the JUnit files with the start of its failure message:
// the reasons, at the end of a log whose tail is all a CI page may show. It exits 0 when the files
// read (the suite's own exit code is the gate), 2 when one does not.
func reportFailures(files []string, stdout io.Writer) error {
	if len(files) == 0 {
		return withCode(exitUsage, fmt.Errorf("report --failures needs at least one JUnit file\n%s", reportUsage))
	}
	for _, f := range files {
		all, err := reports.JUnitFailures(f)
		if err != nil {
			return withCode(exitUsage, err)
		}
		fmt.Fprintf(stdout, "%d failed spec(s) in %s\n", len(all), f)
		for i, jf := range all {
			fmt.Fprintf(stdout, "\n%d. %s\n", i+1, jf.Name)
			for _, line := range boundedLines(jf.Message, failureLines, failureChars) {
				fmt.Fprintf(stdout, "   %s\n", line)
			}
		}
	}
	return nil
}

// boundedLines returns the first lines of msg, at most n lines and about max characters, marking a cut.
func boundedLines(msg string, n, max int) []string {
	lines := strings.Split(strings.TrimSpace(msg), "\n")
	var out []string
	size := 0
	for i, l := range lines {
		if i == n || size+len(l) > max {
			out = append(out, fmt.Sprintf("… (%d more line(s); the whole message is in the JUnit file)", len(lines)-i))
			break
		}
		out = append(out, l)
		size += len(l)
	}
	return out
}
