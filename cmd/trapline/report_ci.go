package main

import (
	"errors"
	"fmt"
	"io"
	"path/filepath"

	"github.com/trapline/trapline/reports"
)

// reportMerge merges shard reports folders into out (reports.WriteMerged) and prints the merged table.
// It does not gate: run `trapline report [--baseline ...]` on the merged summary for that. Shards that
// do not belong to one run, a shard without its reports, a shard whose model never answered and a
// merge with fewer arms than --require-arms exit 3 (broken: unknown, not absent); a usage error or an
// unusable (tampered) summary 2.
func reportMerge(dirs []string, out string, requireArms int, stdout io.Writer) error {
	if len(dirs) == 0 {
		return withCode(exitUsage, fmt.Errorf("report --merge needs at least one shard folder\n%s", reportUsage))
	}
	m, err := reports.WriteMergedWith(out, dirs, reports.MergeOptions{RequireArms: requireArms})
	if err != nil {
		if errors.Is(err, reports.ErrShardMismatch) || errors.Is(err, reports.ErrIncompleteRun) || errors.Is(err, reports.ErrShardMissing) ||
			errors.Is(err, reports.ErrModelSilent) {
			return withCode(exitBroken, err)
		}
		return withCode(exitUsage, err)
	}
	if err := reports.Table(stdout, m.Summary); err != nil {
		return withCode(exitBroken, err)
	}
	fmt.Fprintf(stdout, "merged %d shard(s) into %s: %s, %s, %s (%d specs in JUnit, %d failed)\n", len(dirs), out,
		reports.SummaryFile, reports.JUnitFile, reports.HTMLFile, m.JUnit.Tests, m.JUnit.Failures+m.JUnit.Errors)
	return nil
}

// reportPatterns reads runs' summaries (and their evidence folders, where they still are) and prints
// the failure patterns across them (reports.FindPatterns). It informs; it does not gate (exit 0).
func reportPatterns(files []string, stdout io.Writer) error {
	if len(files) == 0 {
		return withCode(exitUsage, fmt.Errorf("report --patterns needs at least one summary\n%s", reportUsage))
	}
	sums, err := readSummaries(files)
	if err != nil {
		return err
	}
	runs := make([]reports.PatternRun, len(sums))
	for i, s := range sums {
		runs[i] = reports.PatternRun{Name: files[i], Dir: filepath.Dir(files[i]), Summary: s}
	}
	if err := reports.WritePatterns(stdout, len(runs), reports.FindPatterns(runs)); err != nil {
		return withCode(exitBroken, err)
	}
	return nil
}

// onlyAgent keeps the entries of one agent ("reference" or "" for the reference agent's arms; "" keeps
// everything) and recounts.
func onlyAgent(s reports.Summary, agent string) reports.Summary {
	if agent == "" {
		return s
	}
	want := reports.AgentName(agent)
	var kept []reports.Entry
	for _, e := range s.Entries {
		if reports.AgentName(e.Agent) == want {
			kept = append(kept, e)
		}
	}
	generated := s.Generated
	s.Entries = kept
	s.Finish(generated)
	return s
}

// gateJUnit adds to the summary's gate the JUnit failures its verdicts do not gate (reports.JUnitGate:
// specs outside the trap arms, agents under test's specs, a failed spec whose arm passed): any makes a
// passing gate exit 1; a worse exit stays. A JUnit file whose trap arms are not the summary's entries
// (s: the whole summary, before --agent) is refused, exit 2.
func gateJUnit(err error, path string, s reports.Summary, stdout io.Writer) error {
	if path == "" {
		return err
	}
	fails, jerr := reports.JUnitGate(path, s)
	if jerr != nil {
		return withCode(exitUsage, jerr) // the input is unusable: no verdict of this run stands beside it
	}
	if len(fails) == 0 {
		return err
	}
	fmt.Fprintf(stdout, "\n%d failed spec(s) the summary's verdicts do not gate (%s):\n", len(fails), path)
	for _, f := range fails {
		fmt.Fprintln(stdout, "  "+f)
	}
	if err != nil {
		return err
	}
	return withCode(exitFailed, fmt.Errorf("%d failed spec(s) the summary's verdicts do not gate: see %s", len(fails), path))
}
