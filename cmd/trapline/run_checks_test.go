package main

import (
	"strings"
	"testing"
)

// Every cross-check of trapline run's flags refuses its command line with its own message, and when
// several fail the first in resolveRun's order is the one reported.
func TestRunFlagChecks(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--planner", "adversary", "--twins"}, "--twins needs an agent under test"},
		{[]string{"--agent", "external", "--planner", "llm", "--twins", "--", "x"}, "--twins needs an agent under test"},
		{[]string{"--agent", "exec", "--planner", "llm", "--", "x"}, "--agent exec takes no --planner llm"},
		{[]string{"--agent", "exec", "--planner", "llm"}, "--agent exec takes no --planner llm"}, // the planner before the command
		{[]string{"--agent", "exec"}, "--agent exec needs the planner command after --"},
		{[]string{"--repeat", "0"}, "--repeat 0: want 1 or more trials"},
		{[]string{"--min-completed", "-0.1"}, "--min-completed -0.1: want a rate between 0 and 1"},
		{[]string{"--repeat", "0", "--min-completed", "2"}, "--repeat 0"}, // repeat before the rate
		{[]string{"--agent", "external", "--model", "nope", "--", "x"}, `--model "nope": for --agent external want one of`},
		{[]string{"--agent", "external", "--timeout", "0s"}, "--agent external needs the agent's command"},                 // the command before the timeout
		{[]string{"--agent", "external", "--storage-state", "x.json", "--", "x"}, "--storage-state: storage state x.json"}, // read for every agent kind
		{[]string{"--login", "no-such-login.yml"}, "--login: credentials: read no-such-login.yml"},
		{[]string{"--agent", "robot", "--repeat", "0"}, "--repeat 0"}, // the limits before the agent kind
		{[]string{"--agent", "robot", "--storage-state", "x.json"}, `--agent "robot": want reference, exec, external`},
	} {
		if _, err := parseRun(tc.args); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: err = %v, want %q", tc.args, err, tc.want)
		}
	}
}

// firstFailed reports the first check that fails, in order, and nil when none does.
func TestFirstFailed(t *testing.T) {
	a, b := errTest("a"), errTest("b")
	if err := firstFailed(runCheck{false, a}, runCheck{true, b}, runCheck{true, a}); err != b {
		t.Errorf("firstFailed = %v, want b", err)
	}
	if err := firstFailed(runCheck{false, a}); err != nil {
		t.Errorf("firstFailed = %v, want nil", err)
	}
}

type errTest string

func (e errTest) Error() string { return string(e) }
