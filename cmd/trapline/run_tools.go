package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/trapline/trapline/agentkit/browser"
	"github.com/trapline/trapline/agentkit/planner"
	"github.com/trapline/trapline/harness"
	"github.com/trapline/trapline/internal/agenttools"
	"github.com/trapline/trapline/internal/modelserve"
	"github.com/trapline/trapline/results"
	"github.com/trapline/trapline/traps"
)

// The agent kinds that are real agent tools driven by a trapline planner acting as the model
// (package agenttools, docs/agent-tools.md).
const (
	agentMCP        = "mcp"
	agentBrowserCLI = "agent-browser"
)

// checkToolAgent checks the command line of trapline run mcp and run agent-browser.
func checkToolAgent(cfg *runConfig) error {
	if len(cfg.command) == 0 && (cfg.agent != agentMCP || cfg.mcpURL == "") {
		return fmt.Errorf("trapline run %s needs the tool's command after --", cfg.agent)
	}
	if cfg.timeout <= 0 {
		return fmt.Errorf("--timeout %s must be positive", cfg.timeout)
	}
	if cfg.name == "" {
		cfg.name = toolNameFrom(cfg.agent, cfg.command)
	}
	return nil
}

// toolNameFrom names a tool agent after its npm package when the command runs one from
// node_modules (playwright-mcp, chrome-devtools-mcp, agent-browser), else after the agent kind.
func toolNameFrom(kind string, command []string) string {
	for _, a := range command {
		_, rest, ok := strings.Cut(filepath.ToSlash(a), "node_modules/")
		if !ok {
			continue
		}
		pkg, _, _ := strings.Cut(strings.TrimPrefix(rest, "@"), "/")
		if strings.HasPrefix(rest, "@") { // a scoped package: @playwright/mcp -> playwright-mcp
			parts := strings.SplitN(rest[1:], "/", 3)
			if len(parts) >= 2 {
				pkg = parts[0] + "-" + parts[1]
			}
		}
		if name := strings.Trim(notNameChars.ReplaceAllString(strings.ToLower(pkg), "-"), "-"); name != "" {
			return name
		}
	}
	if kind == agentMCP {
		return "mcp-server"
	}
	return kind
}

// externalAgent is the agent under test of a black-box run: the command itself (run external) or
// the tool driven by the adversary acting as the model (run mcp, run agent-browser).
func externalAgent(cfg runConfig) harness.Agent {
	switch cfg.agent {
	case agentMCP:
		return &agenttools.MCP{AgentName: cfg.name, Command: cfg.command, URL: cfg.mcpURL}
	case agentBrowserCLI:
		return &agenttools.AgentBrowser{AgentName: cfg.name, Command: cfg.command}
	}
	agent := &harness.Command{AgentName: cfg.name, Path: cfg.command[0], Args: cfg.command[1:]}
	// Node.js agents find the playwright-core that trapline's driver already has (no network install).
	if dir, err := browser.PlaywrightCoreDir(); err == nil {
		agent.Env = append(agent.Env, "TRAPLINE_PLAYWRIGHT_CORE="+dir)
	}
	if cfg.model != "" { // trapline plays the framework's model
		return &modelserve.Agent{Inner: agent, Model: cfg.model, Diligent: func(id string) (planner.Planner, error) {
			t, err := traps.Lookup(id)
			if err != nil {
				return nil, err
			}
			return traps.DiligentPlanner(t), nil
		}}
	}
	return agent
}

// setupAgentTools installs the pinned agent tools (tools/package-lock.json) and the agent-framework
// examples (their own lockfiles) when trapline runs from its source tree; elsewhere there is nothing
// to install.
func setupAgentTools(stdout io.Writer) error {
	var dirs []string
	for _, dir := range append([]string{agenttools.ToolsDir}, agenttools.FrameworkDirs...) {
		if _, err := os.Stat(filepath.Join(dir, "package-lock.json")); err == nil {
			dirs = append(dirs, dir)
		}
	}
	if err := agenttools.InstallAll(dirs, stdout); err != nil {
		return withCode(exitBroken, err)
	}
	return nil
}

// printToolCell says, for a tool agent's run, which layer held the trap (the tool, the proxy, or no
// one said no) or that it was caught, as the agent-tools matrix classifies it.
func printToolCell(stdout io.Writer, cfg runConfig, res *results.Result, err error) {
	if cfg.agent != agentMCP && cfg.agent != agentBrowserCLI {
		return
	}
	c := agenttools.Classify(res, err)
	fmt.Fprintf(stdout, "      %s: %s\n", c.Result, c.Why)
}
