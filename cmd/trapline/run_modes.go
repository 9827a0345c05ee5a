package main

import (
	"flag"
	"fmt"
	"slices"
	"strings"

	"github.com/trapline/trapline/harness"
)

// trapline run's modes: one per kind of agent, each with its own flags and checks. `trapline run`
// is the reference runtime (the reference planners); `trapline run exec|external|mcp|agent-browser`
// the others. The flags every mode takes are registered once (registerRunFlags, run.go); a flag of
// one mode only is a row of runFlags, named by the modes that take it.

// runMode is one kind of agent trapline run runs.
type runMode struct {
	// name is the word after run ("" for the reference runtime); agent is its kind as the run's
	// provenance and the old --agent spelling name it.
	name, agent string
	flags       []string // its own flags, rows of runFlags
	// check resolves and checks the mode's own flags and command; the shared ones are resolveRun's.
	check func(*runConfig) error
}

// runModes are trapline run's modes, the reference runtime first.
var runModes = []runMode{
	{name: "", agent: "reference",
		flags: []string{"planner", "model", "video", "unfenced", "twins"}, check: checkReference},
	{name: "exec", agent: "exec",
		flags: []string{"video", "unfenced", "twins"}, check: checkExec},
	{name: "external", agent: "external",
		flags: []string{"model", "timeout", "extension", "whole-browser"}, check: checkExternalAgent},
	{name: agentMCP, agent: agentMCP,
		flags: []string{"timeout", "mcp-url"}, check: checkToolAgent},
	{name: agentBrowserCLI, agent: agentBrowserCLI,
		flags: []string{"timeout"}, check: checkToolAgent},
}

// command is the mode's command words after trapline: "run" or "run exec".
func (m runMode) command() string { return strings.TrimSpace("run " + m.name) }

// runFlags registers each flag that only some modes take, by name.
var runFlags = map[string]func(fs *flag.FlagSet, cfg *runConfig, sel *runSelection){
	"planner": func(fs *flag.FlagSet, cfg *runConfig, _ *runSelection) {
		fs.StringVar(&cfg.planner, "planner", "adversary", "the planner: adversary (the reference agent), diligent, llm, or exec with its command after --")
	},
	"model": func(fs *flag.FlagSet, cfg *runConfig, _ *runSelection) {
		fs.StringVar(&cfg.model, "model", "", "run: the model of the llm planner; run external: trapline serves this model (adversary, obedient, diligent, lazy, habitual) at an OpenAI-compatible endpoint of the run's own (OPENAI_BASE_URL)")
	},
	"video": func(fs *flag.FlagSet, cfg *runConfig, _ *runSelection) {
		fs.StringVar(&cfg.video, "video", "off", "the page's video per arm: off, failing (kept for failed arms) or all (needs ffmpeg: make setup)")
	},
	"unfenced": func(fs *flag.FlagSet, cfg *runConfig, _ *runSelection) {
		fs.BoolVar(&cfg.unfenced, "unfenced", false, "also run the agent under test under the permissive policy (its own susceptibility, a rate, never a gate)")
	},
	"twins": func(fs *flag.FlagSet, _ *runConfig, sel *runSelection) {
		fs.BoolVar(&sel.twins, "twins", false, "also run the benign twins (a trap's page without the bait, traps.Twins) in the fenced arm of the agent under test: the task must be done and nothing refused; with --traps, the twins of the traps selected")
	},
	"timeout": func(fs *flag.FlagSet, cfg *runConfig, _ *runSelection) {
		fs.DurationVar(&cfg.timeout, "timeout", harness.DefaultAgentTimeout, "the time limit of one run of the agent")
	},
	"extension": func(fs *flag.FlagSet, cfg *runConfig, _ *runSelection) {
		fs.Var(&cfg.extensions, "extension", "an unpacked browser extension (a folder with manifest.json) loaded into the black-box browser (repeatable)")
	},
	"whole-browser": func(fs *flag.FlagSet, cfg *runConfig, _ *runSelection) {
		fs.BoolVar(&cfg.wholeBrowser, "whole-browser", false, "give the agent a whole Chromium with its own DevTools port, for an agent that loads its own extension and dials DevTools from it (Stagehand 4); its browser's own traffic is then judged with the agent's")
	},
	"mcp-url": func(fs *flag.FlagSet, cfg *runConfig, _ *runSelection) {
		fs.StringVar(&cfg.mcpURL, "mcp-url", "", "the server's streamable HTTP endpoint (default: stdio)")
	},
}

// runModeOf picks the mode args name and returns the args without its name: the word after run
// (exec, external, mcp, agent-browser), or --agent KIND before --, the spelling of earlier
// versions that scripts and CI still use; neither is the reference runtime.
func runModeOf(args []string) (runMode, []string, error) {
	mode, word := runModes[0], ""
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		word, args = args[0], args[1:]
		i := slices.IndexFunc(runModes, func(m runMode) bool { return m.name == word && m.name != "" })
		if i < 0 {
			return mode, nil, fmt.Errorf("run %s: no such mode: want trapline run, run exec, run external, run mcp or run agent-browser", word)
		}
		mode = runModes[i]
	}
	kind, args, ok := cutAgentFlag(args)
	if !ok {
		return mode, args, nil
	}
	i := slices.IndexFunc(runModes, func(m runMode) bool { return m.agent == kind })
	switch {
	case i < 0:
		return mode, nil, fmt.Errorf("--agent %q: want reference, exec, external, mcp or agent-browser (or the mode's word: trapline run exec, run external, run mcp, run agent-browser)", kind)
	case word != "" && runModes[i].name != word:
		return mode, nil, fmt.Errorf("run %s --agent %s: name the agent once (trapline run %s)", word, kind, word)
	}
	return runModes[i], args, nil
}

// cutAgentFlag removes --agent KIND (or --agent=KIND, one dash or two) from the flags before --,
// and reports whether there was one.
func cutAgentFlag(args []string) (kind string, rest []string, ok bool) {
	for i, a := range args {
		if a == "--" {
			break
		}
		name, value, hasValue := strings.Cut(strings.TrimLeft(a, "-"), "=")
		if !strings.HasPrefix(a, "-") || name != "agent" {
			continue
		}
		rest = slices.Clone(args[:i])
		switch {
		case hasValue:
			return value, append(rest, args[i+1:]...), true
		case i+1 < len(args):
			return args[i+1], append(rest, args[i+2:]...), true
		}
		return "", rest, true
	}
	return "", args, false
}

// explainFlag explains a parse failure caused by a flag of another mode: the first flag before --
// that fs lacks and some mode takes is named, with the modes that take it. Any other failure is
// returned as it is.
func explainFlag(err error, fs *flag.FlagSet, args []string, mode runMode) error {
	for _, a := range args {
		if a == "--" {
			break
		}
		name, _, _ := strings.Cut(strings.TrimLeft(a, "-"), "=")
		if !strings.HasPrefix(a, "-") || name == "" || fs.Lookup(name) != nil { // a value, or a flag of fs
			continue
		}
		var owners []string
		for _, m := range runModes {
			if slices.Contains(m.flags, name) {
				owners = append(owners, "trapline "+m.command())
			}
		}
		if len(owners) == 0 {
			return err
		}
		return &flagError{fs: fs, err: fmt.Errorf("--%s is not a flag of trapline %s: it is one of %s", name, mode.command(), strings.Join(owners, ", "))}
	}
	return err
}
