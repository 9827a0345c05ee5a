package agentkit_test

import (
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// mustNotImport is docs/architecture.md's import rules, per package directory (module-relative):
// a non-test file of the package importing a listed path (or anything under it) fails.
var mustNotImport = map[string][]string{
	"agentkit/action":            {"agentkit/", "proxy", "fixtures", "world", "traps", "harness", "reports", "mutate"},
	"agentkit/policy":            {"agentkit/observe", "agentkit/act", "agentkit/evidence", "agentkit/browser", "agentkit/planner", "proxy", "fixtures", "world", "traps", "harness", "reports", "mutate"},
	"agentkit/observe":           {"agentkit/browser", "agentkit/act", "agentkit/planner", "proxy", "fixtures", "world", "traps", "harness", "reports"},
	"agentkit/planner/adversary": {"agentkit/policy", "agentkit/browser", "traps", "harness"},
	"agentkit/planner/exec":      {"agentkit/policy", "agentkit/browser", "traps", "harness"},
	"agentkit/planner/llm":       {"agentkit/policy", "agentkit/browser", "traps", "harness"},
	"agentkit/planner/scripted":  {"agentkit/policy", "agentkit/browser", "traps", "harness"},
	"agentkit":                   {"agentkit/browser", "proxy", "fixtures", "world", "traps", "harness", "reports"},
	"agentkit/browser":           {"fixtures", "world", "traps", "harness", "reports"},
	"proxy":                      {"agentkit/observe", "agentkit/browser", "fixtures", "world", "traps", "harness"},
	"fixtures":                   {"agentkit", "proxy", "world", "traps", "harness", "reports"},
	"world":                      {"agentkit/browser", "agentkit/planner", "traps", "harness", "reports"},
	"traps":                      {"harness", "reports", "world", "mutate"},
	"bypass":                     {"harness", "reports", "mutate"},
}

func TestPackagesKeepTheirImportRules(t *testing.T) {
	const mod = "github.com/trapline/trapline/"
	for dir, banned := range mustNotImport {
		files, err := filepath.Glob(filepath.Join("..", dir, "*.go"))
		if err != nil || len(files) == 0 {
			t.Fatalf("%s: no Go files (%v): the table names a package that moved", dir, err)
		}
		for _, f := range files {
			if strings.HasSuffix(f, "_test.go") {
				continue
			}
			src, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			pf, err := parser.ParseFile(token.NewFileSet(), f, src, parser.ImportsOnly)
			if err != nil {
				t.Fatal(err)
			}
			for _, im := range pf.Imports {
				p, _ := strconv.Unquote(im.Path.Value)
				rel, ok := strings.CutPrefix(p, mod)
				if !ok {
					continue
				}
				for _, b := range banned {
					if rel == strings.TrimSuffix(b, "/") || strings.HasPrefix(rel, strings.TrimSuffix(b, "/")+"/") {
						t.Errorf("%s imports %s: docs/architecture.md says %s must not import %s", f, rel, dir, b)
					}
				}
			}
		}
	}
}
