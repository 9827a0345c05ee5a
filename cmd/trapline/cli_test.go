package main

import (
	"bytes"
	"context"
	"os"
	"strings"
	"testing"
	"time"
)

// runCLI runs trapline with args as main does and returns the exit code and what it printed.
func runCLI(args ...string) (code int, stdout, stderr string) {
	var out, errOut bytes.Buffer
	code = run(args, &out, &errOut)
	return code, out.String(), errOut.String()
}

// cliCase is one trapline command line and what it must answer: the exit code and the texts its
// output (stdout and stderr together) must contain.
type cliCase struct {
	args     []string
	code     int
	contains []string
}

// checkCLI runs each case and reports a wrong exit code or a text missing from the output.
func checkCLI(t *testing.T, cases []cliCase) {
	t.Helper()
	for _, c := range cases {
		code, out, errOut := runCLI(c.args...)
		if code != c.code {
			t.Errorf("trapline %v exit %d, want %d\nstdout: %s\nstderr: %s", c.args, code, c.code, out, errOut)
		}
		for _, w := range c.contains {
			if !strings.Contains(out+errOut, w) {
				t.Errorf("trapline %v output lacks %q:\n%s%s", c.args, w, out, errOut)
			}
		}
	}
}

// usageCase is a command line trapline must refuse as bad usage, and a text its stderr must contain.
type usageCase struct {
	args     []string
	contains string
}

// checkUsage runs each case and reports an exit code other than exitUsage or a stderr without the text.
func checkUsage(t *testing.T, cases []usageCase) {
	t.Helper()
	for _, c := range cases {
		code, _, errOut := runCLI(c.args...)
		if code != exitUsage {
			t.Errorf("trapline %v exit %d, want %d (stderr %s)", c.args, code, exitUsage, errOut)
		}
		if !strings.Contains(errOut, c.contains) {
			t.Errorf("trapline %v stderr lacks %q:\n%s", c.args, c.contains, errOut)
		}
	}
}

// startCommand runs a long-running sub-command (serve, sites) in the background and returns what it
// sent on ready, once it did, and stop, which cancels the command and fails the test unless it then
// returns nil. The test fails when the command ends before it is ready or is not ready within 10 s.
func startCommand[T any](t *testing.T, name string, start func(ctx context.Context, ready chan<- T) error) (T, func()) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	ready := make(chan T, 1)
	done := make(chan error, 1)
	go func() { done <- start(ctx, ready) }()
	var v T
	select {
	case v = <-ready:
	case err := <-done:
		t.Fatalf("%s ended early: %v", name, err)
	case <-time.After(10 * time.Second):
		t.Fatalf("%s did not start", name)
	}
	stop := func() {
		t.Helper()
		cancel()
		if err := <-done; err != nil {
			t.Fatal(err)
		}
	}
	return v, stop
}

// writeFile writes data to path (mode 0644) for a test's input, fails the test when it cannot, and
// returns path.
func writeFile(t *testing.T, path, data string) string {
	t.Helper()
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}
