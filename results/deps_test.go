package results

import (
	"os/exec"
	"strings"
	"testing"
)

// TestResultsNeedNoCatalog: reading a result needs neither the catalog (package traps and its
// sub-packages) nor a planner (agentkit/planner's implementations): the arm enum lives here.
func TestResultsNeedNoCatalog(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", ".").Output()
	if err != nil {
		t.Fatalf("go list -deps: %v", err)
	}
	const mod = "github.com/trapline/trapline/"
	for _, p := range strings.Fields(string(out)) {
		if p == mod+"traps" || strings.HasPrefix(p, mod+"traps/") || strings.HasPrefix(p, mod+"agentkit/planner/") {
			t.Errorf("package results depends on %s", p)
		}
	}
}
