package main

import (
	"context"
	"flag"
	"io"
	"os"
	"os/signal"
	"syscall"
)

// What every sub-command shares: its flag set and, for the long-running ones, the context a stop
// signal cancels. The exit codes are withCode's (main.go).

// newFlags is a sub-command's flag set. It prints nothing: a parse error goes up to main, which
// prints it once with the sub-command's usage.
func newFlags(name string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	return fs
}

// untilStopped is the context a long-running sub-command (run, serve, sites, proxy, mutate, tools
// matrix) runs under: SIGINT (Ctrl-C) or SIGTERM cancels it, so the command closes its worlds,
// browsers and containers and writes what it has instead of dying mid-run.
func untilStopped() (context.Context, context.CancelFunc) {
	return signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
}
