package main

import (
	"fmt"
	"io"
	"time"

	"github.com/trapline/trapline/reports"
)

const pruneUsage = `usage: trapline evidence prune --older-than AGE [--dry-run] DIR
Removes, below DIR, every arm's evidence folder (traces, screenshots, logs: page content, personal data
included) whose newest file is older than AGE (30d, 36h, ...); summaries and reports stay.`

// cmdEvidencePrune removes evidence folders older than --older-than below one folder (retention:
// the source documents keep evidence 30 to 90 days).
func cmdEvidencePrune(args []string, stdout io.Writer) error {
	fs := newFlags("evidence prune")
	age := fs.String("older-than", "", "remove evidence folders older than this (30d, 36h)")
	dry := fs.Bool("dry-run", false, "list what would be removed, remove nothing")
	if err := parseFlags(fs, args); err != nil {
		return withCode(exitUsage, fmt.Errorf("evidence prune: %w\n%s", err, pruneUsage))
	}
	if *age == "" || fs.NArg() != 1 {
		return withCode(exitUsage, fmt.Errorf("evidence prune needs --older-than and exactly one folder\n%s", pruneUsage))
	}
	d, err := reports.ParseAge(*age)
	if err != nil {
		return withCode(exitUsage, fmt.Errorf("evidence prune: --older-than: %w", err))
	}
	pruned, err := reports.PruneEvidence(fs.Arg(0), d, time.Now(), *dry)
	if err != nil {
		return withCode(exitBroken, err)
	}
	verb := "removed"
	if *dry {
		verb = "would remove"
	}
	var total int64
	for _, p := range pruned {
		fmt.Fprintf(stdout, "%s %s (newest file %s, %s)\n", verb, p.Dir, p.Newest.UTC().Format(time.RFC3339), reports.HumanBytes(p.Bytes))
		total += p.Bytes
	}
	fmt.Fprintf(stdout, "%s %d evidence folder(s), %s, older than %s\n", verb, len(pruned), reports.HumanBytes(total), *age)
	return nil
}
