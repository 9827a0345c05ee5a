package agentkit_test

import (
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// mustNotImport is docs/architecture.md's import rules, per package directory (module-relative):
// a non-test file of the package importing a listed path (or anything under it) fails.
var mustNotImport = map[string][]string{
	"agentkit/action":            {"agentkit/", "proxy", "fixtures", "world", "traps", "harness", "reports", "internal/"},
	"agentkit/policy":            {"agentkit/observe", "agentkit/act", "agentkit/evidence", "agentkit/browser", "agentkit/planner", "proxy", "fixtures", "world", "traps", "harness", "reports", "internal/"},
	"agentkit/observe":           {"agentkit/browser", "agentkit/act", "agentkit/planner", "proxy", "fixtures", "world", "traps", "harness", "reports"},
	"agentkit/planner/adversary": {"agentkit/policy", "agentkit/browser", "traps", "harness"},
	"internal/planner/exec":      {"agentkit/policy", "agentkit/browser", "traps", "harness"},
	"internal/planner/llm":       {"agentkit/policy", "agentkit/browser", "traps", "harness"},
	"agentkit/planner/scripted":  {"agentkit/policy", "agentkit/browser", "traps", "harness"},
	"agentkit":                   {"agentkit/browser", "proxy", "fixtures", "world", "traps", "harness", "reports"},
	"agentkit/browser":           {"fixtures", "world", "traps", "harness", "reports"},
	"proxy":                      {"agentkit/observe", "agentkit/browser", "fixtures", "world", "traps", "harness"},
	"fixtures":                   {"agentkit", "proxy", "world", "traps", "harness", "reports"},
	"world":                      {"agentkit/browser", "agentkit/planner", "traps", "harness", "reports"},
	"traps":                      {"harness", "reports", "world", "internal/", "agentkit/browser", "traps/drivers"},
	"traps/scenario":             {"harness", "reports", "world", "internal/", "agentkit/browser", "traps/drivers"},
	"traps/drivers":              {"harness", "reports", "world", "internal/"},
	"results":                    {"harness", "reports", "world", "internal/", "agentkit/browser", "traps/drivers"},
	"reports":                    {"harness", "internal/", "agentkit/browser", "traps/drivers"},
	"internal/bypass":            {"harness", "reports", "internal/mutate"},
}

// sharedInternal is the shared machinery public packages may import, as gomega and testcontainers
// keep theirs under internal/ (issue 29.4): one reader of the files users write (size limits, the
// strict YAML decoder and its located error), and one bound on a log record (internal/jsonl,
// issue 49.10), and one follower of an agent's processes (internal/proctree: the harness ends
// what an agent under test starts, issue 49.12), the CDP method filter (internal/cdpfilter, the
// table of what an agent may send trapline's browser, issue 50: no name of it is in
// agentkit/browser's API), and one home of what surrounds the deterministic login
// (internal/loginpolicy: its password read when used, its own requests allowed by construction,
// issue 53.1), which the harness and `trapline observe` share. A public package re-exports what its
// users match (policy.ErrTooLarge), so no internal name is needed to use its API.
var sharedInternal = []string{"internal/userfile", "internal/jsonl", "internal/proctree", "internal/cdpfilter", "internal/loginpolicy"}

// publicPackages are the packages users import (docs/architecture.md, "Public and internal"): none of
// them may import internal/ (but sharedInternal), so no internal type reaches their API unnamed.
var publicPackages = []string{
	"agentkit", "agentkit/act", "agentkit/action", "agentkit/browser", "agentkit/credentials",
	"agentkit/evidence", "agentkit/observe", "agentkit/planner", "agentkit/planner/adversary",
	"agentkit/planner/scripted", "agentkit/policy",
	"fixtures", "gomegatrap", "harness", "policies", "proxy", "reports", "results", "traps", "traps/drivers", "traps/scenario", "world",
}

func TestPublicPackagesDoNotImportInternal(t *testing.T) {
	for _, dir := range publicPackages {
		mustNotImport := map[string][]string{dir: {"internal/"}}
		checkImports(t, mustNotImport)
	}
}

func TestPackagesKeepTheirImportRules(t *testing.T) { checkImports(t, mustNotImport) }

func checkImports(t *testing.T, mustNotImport map[string][]string) {
	t.Helper()
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
				if slices.Contains(sharedInternal, rel) {
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

// TestEveryPackageIsPublicOrInternal walks the module: a package outside internal/ and cmd/ that is
// not in publicPackages is new public API, to be decided (listed there and in docs/architecture.md)
// or moved under internal/. Test-only packages (specs, bench, ci) export nothing and are allowed.
func TestEveryPackageIsPublicOrInternal(t *testing.T) {
	known := map[string]bool{}
	for _, p := range publicPackages {
		known[p] = true
	}
	root := ".."
	err := filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			switch {
			case rel == ".":
				return nil
			case strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata" || d.Name() == "node_modules",
				rel == "internal", rel == "cmd", rel == "examples":
				return filepath.SkipDir
			}
			files, _ := filepath.Glob(filepath.Join(path, "*.go"))
			nonTest := 0
			for _, f := range files {
				if !strings.HasSuffix(f, "_test.go") && filepath.Base(f) != "doc.go" {
					nonTest++
				}
			}
			if nonTest > 0 && !known[rel] {
				t.Errorf("package %s is neither in publicPackages nor under internal/: decide whether users import it", rel)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
