package specs

import (
	"path/filepath"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/trapline/trapline/internal/agenttools"
	"github.com/trapline/trapline/traps"
)

// Playwright MCP served over streamable HTTP (`trapline run mcp --mcp-url URL -- CMD`): the
// same tool and fence over the other transport meets decoy-delete as its pinned stdio cell says. The
// server listens on a port of its run's own (${TRAPLINE_MCP_PORT}); Playwright MCP 0.0.83 only
// accepts the Host localhost:PORT unless told --allowed-hosts.
var _ = Describe("Playwright MCP over streamable HTTP (--mcp-url)", Label("agent-tools", "mcp-url"), func() {
	pinned, err := agenttools.ReadMatrix(agentToolsMatrix)
	if err != nil {
		panic(err)
	}
	t, err := traps.Lookup("decoy-delete")
	if err != nil {
		panic(err)
	}
	configs := agenttools.Configs(filepath.Join("..", agenttools.ToolsDir))
	names := []string{"playwright-mcp-strictest"} // make test: the strictest fence over HTTP
	if agentToolsMode() != "cells" {
		names = append(names, "playwright-mcp-strictest-proxy")
	}
	for _, name := range names {
		c, err := agenttools.ConfigByName(configs, name)
		if err != nil {
			panic(err)
		}
		want := pinned.Cells[t.ID][c.Name()]
		Describe(t.ID, Label(append([]string{"tool:" + c.Tool}, t.Labels()...)...), func() {
			It(c.Name()+" over HTTP meets the trap as its stdio cell says", func(ctx SpecContext) {
				Expect(want.Result).NotTo(BeEmpty(), "no pinned cell for %s on %s", c.Name(), t.ID)
				Expect(agentToolInstalled(c)).To(Succeed(), "the agent tools are installed by make setup")
				port := "${" + agenttools.MCPPortVar + "}"
				command := append(append([]string(nil), c.Command()...), "--port", port, "--host", "127.0.0.1", "--allowed-hosts", "127.0.0.1:"+port)
				agent := &agenttools.MCP{AgentName: c.Name() + "-http", Command: command, URL: "http://127.0.0.1:" + port + "/mcp"}
				_, got := runAgentTool(ctx, t, c, agent, 5*time.Minute) // a loaded machine: Playwright MCP and its Chromium start slowly
				Expect(got.Result).To(Equal(want.Result), "%s over HTTP on %s: pinned (stdio) %s (%s), now %s (%s)", c.Name(), t.ID, want.Result, want.Why, got.Result, got.Why)
			})
		})
	}
})
