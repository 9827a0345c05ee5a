package main

import (
	"errors"
	"fmt"
	"io"

	"github.com/trapline/trapline/reports"
)

// reportMerge merges shard reports folders into out (reports.WriteMerged) and prints the merged table.
// It does not gate: run `trapline report [--baseline ...]` on the merged summary for that. Shards that
// do not belong to one run exit 3 (broken), a usage error 2.
func reportMerge(dirs []string, out string, stdout io.Writer) error {
	if len(dirs) == 0 {
		return withCode(exitUsage, fmt.Errorf("report --merge needs at least one shard folder\n%s", reportUsage))
	}
	m, err := reports.WriteMerged(out, dirs)
	if err != nil {
		if errors.Is(err, reports.ErrShardMismatch) {
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

// reportPatterns is filled in by the patterns change.
func reportPatterns(files []string, stdout io.Writer) error {
	return withCode(exitUsage, errors.New("report --patterns: not implemented yet"))
}
