package main

import (
	"strings"
	"testing"
)

// Every cross-check of trapline run's flags refuses its command line with its own message, and when
// several fail the first in resolveRun's order is the one reported; a flag of another mode names the
// modes that take it.
func TestRunFlagChecks(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--planner", "adversary", "--twins"}, "--twins needs an agent under test"},
		{[]string{"external", "--twins", "--", "x"}, "--twins is not a flag of trapline run external: it is one of trapline run, trapline run exec"},
		{[]string{"exec", "--planner", "llm", "--", "x"}, "--planner is not a flag of trapline run exec: it is one of trapline run"},
		{[]string{"--agent", "exec", "--planner", "llm"}, "--planner is not a flag of trapline run exec"}, // the old spelling
		{[]string{"exec"}, "trapline run exec needs the planner command after --"},
		{[]string{"--agent", "exec"}, "trapline run exec needs the planner command after --"},
		{[]string{"--planner", "exec"}, "--planner exec needs the planner command after --"},
		{[]string{"--planner", "robot"}, `--planner "robot": want adversary, diligent or llm`},
		{[]string{"--repeat", "0"}, "--repeat 0: want 1 or more trials"},
		{[]string{"--min-completed", "-0.1"}, "--min-completed -0.1: want a rate between 0 and 1"},
		{[]string{"--repeat", "0", "--min-completed", "2"}, "--repeat 0"}, // repeat before the rate
		{[]string{"external", "--model", "nope", "--", "x"}, `--model "nope": for trapline run external want one of`},
		{[]string{"external", "--timeout", "0s"}, "trapline run external needs the agent's command"},            // the command before the timeout
		{[]string{"external", "--storage-state", "x.json", "--", "x"}, "--storage-state: storage state x.json"}, // read for every agent kind
		{[]string{"--login", "no-such-login.yml"}, "--login: credentials: read no-such-login.yml"},
		{[]string{"--agent", "robot", "--repeat", "0"}, `--agent "robot": want reference, exec, external`}, // the kind before the limits
		{[]string{"robot", "--repeat", "0"}, "run robot: no such mode"},
		{[]string{"mcp", "--agent", "exec", "--", "x"}, "run mcp --agent exec: name the agent once"},
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

// The mode is the word after run or, as in earlier versions, --agent KIND anywhere before --.
func TestRunModeOf(t *testing.T) {
	for _, tc := range []struct {
		args      []string
		agent     string
		remaining []string
	}{
		{nil, "reference", nil},
		{[]string{"--traps", "x"}, "reference", []string{"--traps", "x"}},
		{[]string{"exec", "--", "p"}, "exec", []string{"--", "p"}},
		{[]string{"--traps", "x", "--agent", "mcp", "--", "--agent", "y"}, agentMCP, []string{"--traps", "x", "--", "--agent", "y"}},
		{[]string{"-agent=external", "--", "a"}, "external", []string{"--", "a"}},
		{[]string{"--agent", "reference"}, "reference", []string{}},
		{[]string{"agent-browser", "--agent", "agent-browser"}, agentBrowserCLI, []string{}},
	} {
		m, rest, err := runModeOf(tc.args)
		if err != nil || m.agent != tc.agent || len(rest) != len(tc.remaining) || strings.Join(rest, " ") != strings.Join(tc.remaining, " ") {
			t.Errorf("runModeOf(%q) = %s, %q, %v; want %s, %q", tc.args, m.agent, rest, err, tc.agent, tc.remaining)
		}
	}
}

// Every mode's flags are rows of runFlags, and no mode registers a shared flag again.
func TestRunModeFlags(t *testing.T) {
	for _, m := range runModes {
		fs := newFlags(m.command())
		var cfg runConfig
		sel := registerRunFlags(fs, &cfg)
		for _, name := range m.flags {
			if runFlags[name] == nil {
				t.Fatalf("%s: no runFlags row %q", m.command(), name)
			}
			runFlags[name](fs, &cfg, sel) // panics on a flag registered twice
		}
	}
}

type errTest string

func (e errTest) Error() string { return string(e) }
