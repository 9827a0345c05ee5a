package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/trapline/trapline/agentkit/browser"
	"github.com/trapline/trapline/internal/planner/llm"
	"github.com/trapline/trapline/reports"
	"github.com/trapline/trapline/results"
)

// provenanceOf records what produces this run (reports.Provenance): trapline, the policy file and its
// hash, the agent, Playwright and Chromium, the world and the machine. chromium is the browser's own
// version when trapline launched it (Browser.Version()); "" asks the binary the external agent gets.
func provenanceOf(ctx context.Context, cfg runConfig, started time.Time, policyPath, chromium string) (*reports.Provenance, error) {
	p, err := provenanceBase(ctx, cfg, started, policyPath, chromium)
	if err != nil || cfg.controlPolicy == "" {
		return p, err
	}
	// Every run has the adversary's control arm: its policy is part of what produced the verdicts.
	sum, err := policySHA256(cfg.controlPolicy)
	if err != nil {
		return nil, err
	}
	p.ControlPolicyPath, p.ControlPolicySHA256 = cfg.controlPolicy, sum
	return p, nil
}

func provenanceBase(ctx context.Context, cfg runConfig, started time.Time, policyPath, chromium string) (*reports.Provenance, error) {
	p := reports.HostProvenance(started)
	p.World = "embedded"
	if cfg.launcher != nil {
		p.World = "container"
	}
	p.PolicyPath, p.PolicySHA256 = "observe", "none"
	if policyPath != "" {
		sum, err := policySHA256(policyPath)
		if err != nil {
			return nil, err
		}
		p.PolicyPath, p.PolicySHA256 = policyPath, sum
	}
	var err error
	if p.PlaywrightDriver, err = browser.PlaywrightDriverVersion(); err != nil {
		return nil, err
	}
	if chromium == "" {
		if chromium, err = browser.ChromiumVersion(ctx, "", os.Environ()); err != nil {
			return nil, err
		}
	}
	p.Chromium = chromium
	p.Agent, err = agentIdentity(cfg, p.TraplineVersion+" "+p.TraplineCommit)
	if err != nil {
		return nil, err
	}
	return &p, nil
}

// agentIdentity says which agent runs: kind, report name, planner, version (--agent-version, else the
// SHA-256 of the command's script or program), and the model and endpoint host of an llm planner.
func agentIdentity(cfg runConfig, trapline string) (reports.AgentIdentity, error) {
	a := reports.AgentIdentity{Kind: cfg.agent, Name: cfg.name, Planner: cfg.planner, Version: cfg.agentVersion}
	switch {
	case cfg.agent == "external":
		a.Planner = "its own"
	case cfg.agent == agentMCP || cfg.agent == agentBrowserCLI:
		a.Planner, a.Tool = "adversary (as the tool's model)", cfg.agent
	case cfg.planner == "llm":
		a.Kind = "llm"
		c := llm.ConfigFromEnv(os.Getenv)
		if cfg.model != "" {
			c.Model = cfg.model
		}
		a.Model = c.Model
		if p, err := llm.New(c); err == nil { // does no I/O: the settings after defaults
			st := p.Settings()
			a.ModelEndpoint = st.Endpoint
			a.ModelSettings = &reports.ModelSettings{Temperature: st.Temperature, MaxTokens: st.MaxTokens, ResponseFormat: st.ResponseFormat}
		} else if u, err := url.Parse(c.BaseURL); err == nil {
			a.ModelEndpoint = u.Scheme + "://" + u.Host + u.Path
		}
		if a.Version == "" {
			a.Version = "model " + c.Model
		}
	case cfg.planner == "exec":
		a.Kind = "exec"
	case cfg.planner == "adversary":
		a.Kind, a.Name = "reference", results.ReferenceAgent
		if a.Version == "" {
			a.Version = "trapline " + trapline
		}
	}
	if len(cfg.command) > 0 {
		a.Command = strings.Join(cfg.command, " ")
		if a.Version == "" {
			v, err := commandVersion(cfg.command)
			if err != nil {
				return a, err
			}
			a.Version = v
		}
	}
	if a.Tool != "" && a.ToolVersion == "" {
		a.ToolVersion = a.Version // the tool's command, hashed (or --agent-version)
		if name, version, ok := npmPackageOf(cfg.command); ok {
			a.Tool, a.ToolVersion = cfg.agent+" "+name, version
		}
	}
	return a, nil
}

// npmPackageOf finds the npm package a tool command runs: the nearest package.json above its script
// (node path/to/cli.js) or its program (a package's bundled binary), as installed from tools/'s
// lockfile. ok is false when there is none, or it names no package and version.
func npmPackageOf(command []string) (name, version string, ok bool) {
	for _, arg := range command[:min(2, len(command))] {
		if !strings.Contains(arg, string(os.PathSeparator)) {
			continue
		}
		for dir := filepath.Dir(arg); ; dir = filepath.Dir(dir) {
			if b, err := os.ReadFile(filepath.Join(dir, "package.json")); err == nil {
				var pkg struct{ Name, Version string }
				if json.Unmarshal(b, &pkg) == nil && pkg.Name != "" && pkg.Version != "" {
					return pkg.Name, pkg.Version, true
				}
			}
			if filepath.Base(dir) == "node_modules" || dir == filepath.Dir(dir) {
				break
			}
		}
	}
	return "", "", false
}

// commandVersion identifies a command by the SHA-256 of the script it runs (its first argument, when
// that is a file) or else of its program.
func commandVersion(command []string) (string, error) {
	file := command[0]
	if len(command) > 1 {
		if fi, err := os.Stat(command[1]); err == nil && !fi.IsDir() {
			file = command[1]
		}
	}
	if !strings.Contains(file, string(os.PathSeparator)) {
		if p, err := exec.LookPath(file); err == nil {
			file = p
		}
	}
	sum, err := reports.FileSHA256(file)
	if err != nil {
		return "", fmt.Errorf("agent version (pass --agent-version): %w", err)
	}
	return "sha256:" + sum + " (" + file + ")", nil
}
