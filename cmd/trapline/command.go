package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"text/tabwriter"
)

// What every sub-command shares: its flag set, the help printed from it, and, for the long-running
// ones, the context a stop signal cancels. The exit codes are withCode's (main.go).

// newFlags is a sub-command's flag set. It prints nothing: a parse error (or -h, --help) goes up to
// main as a *flagError, and main prints the sub-command's help from the flag set itself.
func newFlags(name string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	return fs
}

// flagError is a flag set's parse failure, or flag.ErrHelp for -h and --help, with the flag set it
// came from: main prints that command's help (to stdout and exit 0 for --help; to stderr and exit 2
// otherwise), whatever the command wrapped it in.
type flagError struct {
	fs  *flag.FlagSet
	err error
}

func (e *flagError) Error() string { return e.err.Error() }
func (e *flagError) Unwrap() error { return e.err }

// parseFlags parses args with fs; a failure is a *flagError carrying fs.
func parseFlags(fs *flag.FlagSet, args []string) error {
	if err := fs.Parse(args); err != nil {
		return &flagError{fs: fs, err: err}
	}
	return nil
}

// writeHelp prints a sub-command's help: its hand-written text (synopsis, purpose, exit codes:
// commandHelp) and then every flag of fs with its value type, its one line and its default, generated
// from the flag set so that it cannot drift from what the command accepts.
func writeHelp(w io.Writer, fs *flag.FlagSet) {
	text := commandHelp(fs.Name())
	fmt.Fprintln(w, strings.TrimRight(text, "\n"))
	n := 0
	fs.VisitAll(func(*flag.Flag) { n++ })
	if n == 0 {
		fmt.Fprintln(w, "\nflags: none")
		return
	}
	fmt.Fprintln(w, "\nflags:")
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fs.VisitAll(func(f *flag.Flag) {
		fmt.Fprintf(tw, "  %s\t%s%s\n", flagSynopsis(f), oneLine(f), flagDefault(f))
	})
	_ = tw.Flush()
}

// flagSynopsis is "--name TYPE" ("--name" for a boolean flag).
func flagSynopsis(f *flag.Flag) string {
	name, _ := flag.UnquoteUsage(f)
	if isBool(f) {
		return "--" + f.Name
	}
	if name == "" || name == "value" {
		name = "string"
	}
	return "--" + f.Name + " " + name
}

// oneLine is the flag's usage on one line.
func oneLine(f *flag.Flag) string {
	_, usage := flag.UnquoteUsage(f)
	return strings.Join(strings.Fields(usage), " ")
}

// flagDefault is " (default X)", or "" when the default is the zero value.
func flagDefault(f *flag.Flag) string {
	switch f.DefValue {
	case "", "0", "false", "[]", "0s":
		return ""
	}
	if _, ok := f.Value.(interface{ IsBoolFlag() bool }); !ok {
		if s, isString := f.Value.(flag.Getter); isString {
			if _, str := s.Get().(string); str {
				return fmt.Sprintf(" (default %q)", f.DefValue)
			}
		}
	}
	return " (default " + f.DefValue + ")"
}

func isBool(f *flag.Flag) bool {
	b, ok := f.Value.(interface{ IsBoolFlag() bool })
	return ok && b.IsBoolFlag()
}

// untilStopped is the context a long-running sub-command (run, serve, sites, proxy, mutate, tools
// matrix) runs under: SIGINT (Ctrl-C) or SIGTERM cancels it, so the command closes its worlds,
// browsers and containers and writes what it has instead of dying mid-run.
func untilStopped() (context.Context, context.CancelFunc) {
	return signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
}
