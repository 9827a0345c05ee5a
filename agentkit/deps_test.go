package agentkit_test

import (
	"os/exec"
	"strings"
	"testing"
)

// browserFree are the packages that must not need the browser runtime, even indirectly: the catalog
// is data plus pages, and `trapline report` reads results without starting Playwright.
var browserFree = []string{"traps", "traps/scenario", "results", "reports"}

// TestDataPackagesDoNotPullInTheBrowser checks the whole import graph (go list -deps) of each package
// in browserFree: neither playwright-go nor agentkit/browser may be in it.
func TestDataPackagesDoNotPullInTheBrowser(t *testing.T) {
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("needs the go command on PATH to list the import graph")
	}
	for _, p := range browserFree {
		out, err := exec.Command(goBin, "list", "-deps", "github.com/trapline/trapline/"+p).CombinedOutput()
		if err != nil {
			t.Fatalf("go list -deps %s: %v\n%s", p, err, out)
		}
		for _, dep := range strings.Fields(string(out)) {
			if strings.HasPrefix(dep, "github.com/mxschmitt/playwright-go") || dep == "github.com/trapline/trapline/agentkit/browser" {
				t.Errorf("%s depends on %s: it must not need the browser runtime", p, dep)
			}
		}
	}
}
