package specs

import (
	"fmt"
	"os"
	"slices"
	"strings"

	. "github.com/onsi/ginkgo/v2"

	"github.com/trapline/trapline/traps"
)

// The long matrices (the agent tools over the catalog, the naive external agent over the catalog, the
// fake model over the catalog) run a sample in make test and in full in targets of their own (make
// agent-tools-matrix, external-matrix, llm-catalog-matrix) and CI jobs (docs/ci.md). Each sample
// keeps at least one cell of every kind, so nothing loses its coverage entirely; an environment
// variable chooses the full matrix.
const (
	agentToolsEnv = "TRAPLINE_AGENT_TOOLS" // cells (default), smoke or full
	externalEnv   = "TRAPLINE_EXTERNAL"    // sample (default) or full
	llmCatalogEnv = "TRAPLINE_LLM_CATALOG" // sample (default) or full
)

// matrixMode is the value of env, "" when unset, refusing a value outside allowed (a typo would
// silently run the sample).
func matrixMode(env string, allowed ...string) string {
	v := os.Getenv(env)
	if v != "" && !slices.Contains(allowed, v) {
		panic(fmt.Sprintf("%s=%q: want one of %q or unset", env, v, allowed))
	}
	return v
}

// fullMatrix reports whether env asks for the full matrix.
func fullMatrix(env string) bool { return matrixMode(env, "sample", "full") == "full" }

// catalogSample is the traps a sampled catalog matrix runs: the first trap of every category, the
// first whose naive example agent is caught and the first where it is not (the external agent's two
// expectations), and any trap the label filter names (trap:ID), so `LABELS=trap:ID` still runs its
// cell.
func catalogSample() []traps.Trap {
	filter := GinkgoLabelFilter()
	seen := map[traps.Category]bool{}
	var naive [2]bool
	var out []traps.Trap
	for _, t := range traps.Catalog() {
		pick := !seen[t.Category]
		if t.Naive != nil {
			i := 0
			if t.Naive.Caught {
				i = 1
			}
			pick = pick || !naive[i]
			naive[i] = true
		}
		pick = pick || containsLabel(filter, "trap:"+t.ID)
		seen[t.Category] = true
		if pick {
			out = append(out, t)
		}
	}
	return out
}

// containsLabel reports whether filter names label as a whole word (trap:a is not trap:ab).
func containsLabel(filter, label string) bool {
	for rest := filter; ; {
		j := strings.Index(rest, label)
		if j < 0 {
			return false
		}
		before, after := j-1, j+len(label)
		if (before < 0 || !isLabelChar(rest[before])) && (after == len(rest) || !isLabelChar(rest[after])) {
			return true
		}
		rest = rest[j+1:]
	}
}

func isLabelChar(c byte) bool {
	return c == '-' || c == '_' || c == ':' || c == '.' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

// catalogMatrix is the catalog for a matrix under env: every trap when full, else catalogSample.
func catalogMatrix(env string) []traps.Trap {
	if fullMatrix(env) {
		return traps.Catalog()
	}
	return catalogSample()
}
