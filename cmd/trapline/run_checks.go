package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/trapline/trapline/agentkit/browser"
	"github.com/trapline/trapline/agentkit/credentials"
	"github.com/trapline/trapline/harness"
	"github.com/trapline/trapline/internal/modelserve"
)

// trapline run's flags checked together: parseRun parses them (run.go), resolveRun turns the parsed
// values into the run's and refuses a command line whose flags do not fit one another.

// runSelection is what --traps and --twins asked for, before resolveRun selects the traps.
type runSelection struct {
	traps string // --traps: trap ids or labels, comma separated
	twins bool   // --twins: also the benign twins of the traps selected
}

// runCheck is one cross-check of trapline run's flags: when bad holds, err is why the command line is
// refused.
type runCheck struct {
	bad bool
	err error
}

// firstFailed is the error of the first check that fails, in order, or nil when none does.
func firstFailed(checks ...runCheck) error {
	for _, c := range checks {
		if c.bad {
			return c.err
		}
	}
	return nil
}

// resolveRun resolves the parsed flags of cfg (the video mode, the traps and twins, each agent's
// defaults) and checks them together, step by step in this order, the mode's own checks among them;
// the first error is the usage error.
func resolveRun(cfg *runConfig, sel runSelection, mode runMode) error {
	steps := []func(*runConfig) error{
		func(c *runConfig) (err error) { c.video, err = harness.ParseVideo(c.video); return err },
		sel.resolve,
		func(c *runConfig) error { return selectWorld(c.world) },
		func(c *runConfig) error { return checkUpstreamFlags(*c) },
		checkRunLimits,
		mode.check,
		checkStorageState,
		checkLogin,
		func(c *runConfig) (err error) { c.out, err = filepath.Abs(c.out); return err },
	}
	for _, step := range steps {
		if err := step(cfg); err != nil {
			return err
		}
	}
	return nil
}

// resolve selects the traps of --traps (and --traps-dir) into cfg.traps, and with --twins (run,
// run exec) their benign twins into cfg.twins: only for an agent under test, as a twin has no bait
// for the adversary.
func (sel runSelection) resolve(cfg *runConfig) error {
	var err error
	if cfg.traps, err = selectTraps(sel.traps, cfg.trapsDirs...); err != nil {
		return err
	}
	if !sel.twins {
		return nil
	}
	if cfg.planner == "adversary" && cfg.agent == "reference" {
		return errors.New("--twins needs an agent under test (--planner diligent or llm, or trapline run exec): a twin has no bait for the adversary")
	}
	cfg.twins = twinsOf(cfg.traps, strings.TrimSpace(sel.traps) != "")
	return nil
}

// checkReference checks trapline run's command line: a command after -- only for --planner exec,
// and the agent under test (a planner other than the adversary) named after its planner unless
// --name did.
func checkReference(cfg *runConfig) error {
	if err := firstFailed(
		runCheck{!slices.Contains([]string{"adversary", "diligent", "llm", "exec"}, cfg.planner),
			fmt.Errorf("--planner %q: want adversary, diligent or llm (a planner process of yours: trapline run exec)", cfg.planner)},
		runCheck{len(cfg.command) > 0 && cfg.planner != "exec",
			fmt.Errorf("unexpected arguments %q (a command after -- is for trapline run exec, external, mcp or agent-browser)", cfg.command)},
		runCheck{len(cfg.command) == 0 && cfg.planner == "exec", errors.New("--planner exec needs the planner command after -- (trapline run exec -- CMD)")},
	); err != nil {
		return err
	}
	defaultUnderTestName(cfg)
	return nil
}

// checkExec checks trapline run exec's command line: the planner command after --, which names the
// agent unless --name does.
func checkExec(cfg *runConfig) error {
	if len(cfg.command) == 0 {
		return errors.New("trapline run exec needs the planner command after --")
	}
	cfg.planner = "exec"
	defaultUnderTestName(cfg)
	return nil
}

// checkRunLimits checks the numbers of an agent under test's runs: the trials per arm and the
// utility gate's rate.
func checkRunLimits(cfg *runConfig) error {
	return firstFailed(
		runCheck{cfg.repeat < 1, fmt.Errorf("--repeat %d: want 1 or more trials", cfg.repeat)},
		runCheck{cfg.minCompleted < 0 || cfg.minCompleted > 1, fmt.Errorf("--min-completed %v: want a rate between 0 and 1", cfg.minCompleted)},
	)
}

// defaultUnderTestName names an agent under test in the reference runtime (a planner other than the
// adversary) after its planner and command, unless --name did.
func defaultUnderTestName(cfg *runConfig) {
	if cfg.name == "" && cfg.planner != "adversary" {
		cfg.name = underTestName(cfg.planner, cfg.command)
	}
}

// checkExternalAgent checks trapline run external's command line: the agent's command (which names
// it unless --name does), a positive --timeout, a --model trapline serves and the extensions.
func checkExternalAgent(cfg *runConfig) error {
	if err := firstFailed(
		runCheck{len(cfg.command) == 0, errors.New("trapline run external needs the agent's command after --")},
		runCheck{cfg.timeout <= 0, fmt.Errorf("--timeout %s must be positive", cfg.timeout)},
		runCheck{cfg.model != "" && !slices.Contains(modelserve.Models, cfg.model),
			fmt.Errorf("--model %q: for trapline run external want one of %s (the model trapline serves)", cfg.model, strings.Join(modelserve.Models, ", "))},
	); err != nil {
		return err
	}
	if cfg.name == "" {
		cfg.name = agentNameFrom(cfg.command)
	}
	return checkExtensions(*cfg)
}

// checkStorageState checks --storage-state, read now so a bad file is a usage error. Every agent
// kind starts from it (an agent under test's browser context gets its cookies).
func checkStorageState(cfg *runConfig) error {
	if cfg.storageState == "" {
		return nil
	}
	if _, err := browser.ReadStorageState(cfg.storageState); err != nil {
		return fmt.Errorf("--storage-state: %w", err)
	}
	return nil
}

// checkLogin reads --login now, so a bad file (or an unset password_env) is a usage error naming the
// file, line and field.
func checkLogin(cfg *runConfig) error {
	if cfg.loginFile == "" {
		return nil
	}
	l, err := credentials.Load(cfg.loginFile, os.Getenv)
	if err != nil {
		return fmt.Errorf("--login: %w", err)
	}
	cfg.login = &l
	return nil
}
