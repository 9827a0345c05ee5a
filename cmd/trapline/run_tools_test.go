package main

import (
	"testing"

	"github.com/trapline/trapline/internal/agenttools"
)

func TestToolAgentUsage(t *testing.T) {
	checkUsage(t, []usageCase{
		{[]string{"run", "mcp"}, "trapline run mcp needs the tool's command"},
		{[]string{"run", "--agent", "agent-browser"}, "trapline run agent-browser needs the tool's command"},
		{[]string{"run", "agent-browser", "--mcp-url", "http://127.0.0.1:1/mcp", "--", "x"}, "--mcp-url is not a flag of trapline run agent-browser: it is one of trapline run mcp"},
		{[]string{"tools", "matrix", "--configs", "nope"}, `no agent-tools config "nope"`},
	})
}

func TestToolAgentParse(t *testing.T) {
	cfg, err := parseRun([]string{"mcp", "--", "node", "tools/node_modules/@playwright/mcp/cli.js", "--headless"})
	if err != nil || cfg.name != "playwright-mcp" {
		t.Fatalf("parseRun = %+v, %v", cfg, err)
	}
	if a, ok := externalAgent(cfg).(*agenttools.MCP); !ok || a.Name() != "playwright-mcp" || a.Command[0] != "node" {
		t.Fatalf("externalAgent = %#v", externalAgent(cfg))
	}
	cfg, err = parseRun([]string{"--agent", "agent-browser", "--", "tools/node_modules/agent-browser/bin/agent-browser-linux-x64", "--allowed-domains", "x"})
	if err != nil || cfg.name != "agent-browser" {
		t.Fatalf("parseRun = %+v, %v", cfg, err)
	}
	if _, ok := externalAgent(cfg).(*agenttools.AgentBrowser); !ok {
		t.Fatalf("externalAgent = %#v", externalAgent(cfg))
	}
	if got := toolNameFrom("mcp", []string{"node", "/x/node_modules/chrome-devtools-mcp/build/src/bin/chrome-devtools-mcp.js"}); got != "chrome-devtools-mcp" {
		t.Errorf("toolNameFrom = %q", got)
	}
	if got := toolNameFrom("mcp", []string{"my-server"}); got != "mcp-server" {
		t.Errorf("toolNameFrom = %q", got)
	}
}

func TestExtensionUsage(t *testing.T) {
	checkUsage(t, []usageCase{
		{[]string{"run", "mcp", "--extension", "../../examples/extension-agent", "--", "x"}, "--extension is not a flag of trapline run mcp: it is one of trapline run external"},
		{[]string{"run", "external", "--extension", t.TempDir(), "--", "x"}, "not an unpacked extension (no manifest.json)"},
	})
}
