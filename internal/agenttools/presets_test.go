package agenttools

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// The pinned versions the matrix names are the versions tools/package-lock.json installs.
func TestPinnedVersionsMatchTheLockfile(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "..", ToolsDir, "package-lock.json"))
	if err != nil {
		t.Fatal(err)
	}
	var lock struct {
		Packages map[string]struct {
			Version string `json:"version"`
		} `json:"packages"`
	}
	if err := json.Unmarshal(b, &lock); err != nil {
		t.Fatal(err)
	}
	for pkg, want := range map[string]string{"@playwright/mcp": PlaywrightMCPVersion, "chrome-devtools-mcp": DevtoolsMCPVersion, "agent-browser": AgentBrowserVersion,
		"@agent-infra/mcp-server-browser": AgentInfraVersion, "@executeautomation/playwright-mcp-server": ExecuteAutomationVersion,
		"@ejazullah/mcp-playwright": EjazullahVersion, "@tontoko/fast-playwright-mcp": TontokoVersion,
		"@modelcontextprotocol/server-puppeteer": PuppeteerServerVersion} {
		if got := lock.Packages["node_modules/"+pkg].Version; got != want {
			t.Errorf("%s: lockfile %q, agenttools pins %q", pkg, got, want)
		}
	}
	for _, c := range Configs(filepath.Join("..", "..", ToolsDir)) {
		if c.Agent().Name() != c.Name() || len(c.Command()) == 0 {
			t.Errorf("config %s: agent %q, command %q", c.Name(), c.Agent().Name(), c.Command())
		}
	}
}
