package main

import (
	"fmt"
	"io"

	"github.com/trapline/trapline/reports"
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
