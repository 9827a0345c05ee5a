// Command trapline runs and reports trapline's trap suite.
//
// `trapline` alone lists the commands (help.go: commands); `trapline help COMMAND` or
// `trapline COMMAND --help` prints a command's help, whose flag list is generated from the command's
// flag set (command.go: writeHelp). An unknown flag prints the same help on stderr and exits 2.
//
// Exit codes (the CI gate; help.go: exitMeanings, the README's table):
//
//	0  ok
//	1  a trap arm failed its verdict with no baseline verdict to compare with (a first run, or a new
//	   trap); report --flake: a verdict changed between runs
//	2  bad usage or bad input (including an unreadable summary)
//	3  the environment or a fixture broke: a run could not be carried out, which is not a trap firing;
//	   report --flake: an arm is missing from some runs, so its stability is unknown there
//	4  a regression against the baseline: an arm that held before fails now
//	5  run --min-completed: safety held, but the agent under test completed too few tasks
//
// When several apply, report returns 4, then 3, then 1. With --baseline, arms that already failed in
// the baseline are listed but do not gate.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
)

// Exit codes.
const (
	exitOK     = 0
	exitFailed = 1
	exitUsage  = 2
	exitBroken = 3
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

func run(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		writeCommandList(stderr)
		return exitUsage
	}
	err := dispatch(args, stdout)
	if err == nil {
		return exitOK
	}
	// A flag set's own failure: the command's help, generated from its flags (--help: on stdout, exit 0).
	var fe *flagError
	if errors.As(err, &fe) {
		if errors.Is(fe.err, flag.ErrHelp) {
			writeHelp(stdout, fe.fs)
			return exitOK
		}
		fmt.Fprintf(stderr, "trapline %s: %v\n\n", fe.fs.Name(), fe.err)
		writeHelp(stderr, fe.fs)
		return exitUsage
	}
	fmt.Fprintln(stderr, "trapline:", err)
	var ee *exitError
	if errors.As(err, &ee) {
		return ee.code
	}
	return exitBroken
}

func dispatch(args []string, stdout io.Writer) error {
	switch args[0] {
	case "setup":
		fset := newFlags("setup")
		browserOnly := fset.Bool("browser-only", false, "install the Playwright driver and check the browser only (what make demo needs); skip ffmpeg and the agent tools")
		if err := parseFlags(fset, args[1:]); err != nil {
			return err
		}
		if fset.NArg() > 0 {
			return withCode(exitUsage, fmt.Errorf("setup takes no arguments (got %q)\n%s", fset.Args(), setupUsage))
		}
		return cmdSetup(stdout, *browserOnly)
	case "run":
		return cmdRun(args[1:], stdout)
	case "report":
		return cmdReport(args[1:], stdout)
	case "proxy":
		return cmdProxy(args[1:], stdout)
	case "serve":
		return cmdServe(args[1:], stdout)
	case "observe":
		return cmdObserve(args[1:], stdout)
	case "sites": // the container world's entrypoint for its sites
		return cmdSites(args[1:], stdout)
	case "audit": // read a sites process's audit API (used inside the container world)
		return cmdAudit(args[1:], stdout)
	case "traps", "policy", "evidence", "rules":
		if len(args) >= 2 {
			switch args[0] + " " + args[1] {
			case "traps list":
				return cmdTrapsList(args[2:], stdout)
			case "traps new":
				return cmdTrapsNew(args[2:], stdout)
			case "traps lint":
				return cmdTrapsLint(args[2:], stdout)
			case "policy lint":
				return cmdPolicyLint(args[2:], stdout)
			case "rules list":
				return cmdRulesList(args[2:], stdout)
			case "evidence prune":
				return cmdEvidencePrune(args[2:], stdout)
			}
		}
		return withCode(exitUsage, fmt.Errorf("unknown command %q\n%s", args, groupUsage(args[0])))
	case "mutate":
		return cmdMutate(args[1:], stdout)
	case "tools":
		return cmdTools(args[1:], stdout)
	case "model":
		return cmdModel(args[1:], stdout)
	case "help", "-h", "--help":
		if len(args) > 1 && !strings.HasPrefix(args[1], "-") { // trapline help CMD: CMD --help
			return dispatch(append(slices.Clone(args[1:]), "--help"), stdout)
		}
		writeCommandList(stdout)
		return nil
	}
	var list strings.Builder
	writeCommandList(&list)
	return withCode(exitUsage, fmt.Errorf("unknown command %q\n\n%s", args[0], strings.TrimRight(list.String(), "\n")))
}
