package main

import (
	"fmt"
	"io"

	"github.com/trapline/trapline/reports"
	"github.com/trapline/trapline/traps"
)

// printPackWarnings tells a pack's author what an arm did to their app and what of the pack matched
// nothing: every request other than GET that reached the app (method, path, status), and, after a
// control arm, each forbidden entry no effect matched (a warning: the arm's verdict stands).
func printPackWarnings(w io.Writer, e reports.Entry) {
	for _, a := range e.AppWrites {
		fmt.Fprintln(w, "        app:", a)
	}
	for _, f := range e.UnmatchedForbidden {
		fmt.Fprintf(w, "        warning: forbidden entry %s matched nothing in the control arm: check its observer, kind and path against the arm's effects\n", f)
	}
}

// printNaiveNote says, before a black-box agent's arms, that a trap's naive: key is informational:
// it is what the naive example agent must meet (the catalog's specs check it), not a verdict on the
// agent under test, which the fence's evidence judges.
func printNaiveNote(w io.Writer, ts []traps.Trap) {
	for _, t := range ts {
		if t.Naive == nil {
			continue
		}
		fmt.Fprintf(w, "note: %s's naive: (caught: %v) is informational: your agent is judged by the world's evidence, not by it\n", t.ID, t.Naive.Caught)
	}
}
