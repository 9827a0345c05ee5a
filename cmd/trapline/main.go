// Command trapline runs and reports trapline's trap suite.
//
//	trapline setup                 install the Playwright driver for the system Node.js
//	trapline run [--agent reference|exec|external] [--traps ...] [--out DIR] [-- CMD ARGS...]
//	                               run the catalog against an agent; external agents are judged from outside
//	trapline report [FILE]         print the summary table of a run (default reports/out/summary.json)
//	trapline report --html OUT.html [FILE]
//	                               also write a self-contained HTML report (matrix, timelines, screenshots)
//	trapline report --baseline PREVIOUS.json [FILE]
//	                               list regressions, new and fixed traps against a baseline summary
//	trapline report --flake FILE...
//	                               list trap arms whose verdict changed between repeated runs
//	trapline traps list            print the catalog
//	trapline traps lint DIR...     load trap packs strictly; one line per problem (file:line: field: reason)
//	trapline traps new [--pack DIR] ID
//	                               scaffold a trap in the built-in pack (from the repo root) or in DIR;
//	                               it fails lint until its TODOs are filled in
//	trapline policy lint FILE      validate a policy and summarise what it allows
//	trapline mutate [--policy FILE] [--traps ID,...] [--smoke] [--all]
//	                               mutation testing: weaken one guard at a time, run the catalog's
//	                               guarded arms, report killed and surviving mutants (coverage gaps)
//
// Exit codes (the CI gate):
//
//	0  ok
//	1  a trap arm failed its verdict with no baseline verdict to compare with (a first run, or a new
//	   trap); report --flake: a verdict changed between runs
//	2  bad usage or bad input (including an unreadable summary)
//	3  the environment or a fixture broke: a run could not be carried out, which is not a trap firing;
//	   report --flake: an arm is missing from some runs, so its stability is unknown there
//	4  a regression against the baseline: an arm that held before fails now
//
// When several apply, report returns 4, then 3, then 1. With --baseline, arms that already failed in
// the baseline are listed but do not gate.
package main

import (
	"errors"
	"fmt"
	"io"
	"os"
)

// Exit codes.
const (
	exitOK      = 0
	exitVerdict = 1
	exitUsage   = 2
	exitBroken  = 3
	// exitRegression: an arm that held in the baseline fails now (report --baseline).
	exitRegression = 4
)

// exitError carries an exit code up to main.
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string { return e.err.Error() }
func (e *exitError) Unwrap() error { return e.err }

func withCode(code int, err error) error { return &exitError{code: code, err: err} }

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

const usage = `usage:
  trapline setup
  trapline run [--agent reference|exec|external|mcp|agent-browser] [--extension DIR] [--traps-dir DIR] [--traps ID,LABEL] [--policy NAME|FILE] [--storage-state FILE] [--out DIR] [-- CMD ARGS...]
  trapline report [summary.json]
  trapline proxy --policy FILE [--listen 127.0.0.1:PORT]
  trapline serve [--traps-dir DIR] [--trap ID] [--listen 127.0.0.1:PORT]
  trapline traps list [--traps-dir DIR]...
  trapline traps new [--pack DIR] ID
  trapline traps lint DIR...
  trapline tools list|matrix [--configs NAME,...] [--traps ID,LABEL]
  trapline policy lint FILE
  trapline evidence prune --older-than 30d [--dry-run] DIR
  trapline mutate [--policy FILE] [--traps ID,...] [--only PREFIX,...] [--limit N] [--smoke] [--all] [--workers N]`

func run(args []string, stdout, stderr io.Writer) int {
	err := dispatch(args, stdout)
	if err == nil {
		return exitOK
	}
	fmt.Fprintln(stderr, "trapline:", err)
	var ee *exitError
	if errors.As(err, &ee) {
		return ee.code
	}
	return exitBroken
}

func dispatch(args []string, stdout io.Writer) error {
	if len(args) == 0 {
		return withCode(exitUsage, errors.New(usage))
	}
	switch args[0] {
	case "setup":
		return cmdSetup(stdout)
	case "run":
		return cmdRun(args[1:], stdout)
	case "report":
		return cmdReport(args[1:], stdout)
	case "proxy":
		return cmdProxy(args[1:], stdout)
	case "serve":
		return cmdServe(args[1:], stdout)
	case "sites": // the container world's entrypoint for its sites
		return cmdSites(args[1:], stdout)
	case "audit": // read a sites process's audit API (used inside the container world)
		return cmdAudit(args[1:], stdout)
	case "traps":
		if len(args) >= 2 && args[1] == "list" {
			return cmdTrapsList(args[2:], stdout)
		}
		if len(args) >= 2 && args[1] == "new" {
			return cmdTrapsNew(args[2:], stdout)
		}
		if len(args) >= 2 && args[1] == "lint" {
			return cmdTrapsLint(args[2:], stdout)
		}
	case "policy":
		if len(args) == 3 && args[1] == "lint" {
			return cmdPolicyLint(args[2], stdout)
		}
	case "mutate":
		return cmdMutate(args[1:], stdout)
	case "tools":
		return cmdTools(args[1:], stdout)
	case "evidence":
		if len(args) >= 2 && args[1] == "prune" {
			return cmdEvidencePrune(args[2:], stdout)
		}
	case "help", "-h", "--help":
		fmt.Fprintln(stdout, usage)
		return nil
	}
	return withCode(exitUsage, fmt.Errorf("unknown command %q\n%s", args, usage))
}
