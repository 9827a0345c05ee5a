package policy

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

func TestRegistryIsWellFormed(t *testing.T) {
	seen := map[Rule]bool{}
	for i, e := range Registry() {
		if e.ID == "" || e.Layer == "" || e.Category == "" || e.Meaning == "" {
			t.Errorf("registry[%d] = %+v: every field is required", i, e)
		}
		if seen[e.ID] {
			t.Errorf("registry[%d]: rule %q registered twice", i, e.ID)
		}
		seen[e.ID] = true
	}
	if Registry()[0].ID != RuleAllowed || Rules()[0] != RuleAllowed {
		t.Error("RuleAllowed must come first")
	}
	if err := CheckRule("stale_ref"); err == nil || !strings.Contains(err.Error(), `"stale_ref"`) {
		t.Errorf("CheckRule of an unregistered rule = %v, want an error naming it", err)
	}
}

// TestEveryRuleInTheModuleIsRegistered walks the module's Go files and finds every rule id written
// down: constants of type Rule (policy.Rule outside this package) and string literals converted to or
// listed as policy.Rule. Each must be in the registry, so a rule added on one branch and not
// registered fails here, not as a failed arm.
func TestEveryRuleInTheModuleIsRegistered(t *testing.T) {
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	found := 0
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if n := d.Name(); n == "testdata" || n == "node_modules" || strings.HasPrefix(n, ".") && path != root {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") {
			return nil
		}
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, path, nil, 0)
		if err != nil {
			return err
		}
		inPolicy := f.Name.Name == "policy"
		check := func(lit ast.Expr) {
			bl, ok := lit.(*ast.BasicLit)
			if !ok || bl.Kind != token.STRING {
				return
			}
			v, _ := strconv.Unquote(bl.Value)
			found++
			if !Rule(v).Registered() {
				t.Errorf("%s: rule %q is not registered in policy.registry (agentkit/policy/rules.go)", fset.Position(bl.Pos()), v)
			}
		}
		isRule := func(e ast.Expr) bool {
			switch x := e.(type) {
			case *ast.Ident:
				return inPolicy && x.Name == "Rule"
			case *ast.SelectorExpr:
				id, ok := x.X.(*ast.Ident)
				return ok && id.Name == "policy" && x.Sel.Name == "Rule"
			}
			return false
		}
		ast.Inspect(f, func(n ast.Node) bool {
			switch x := n.(type) {
			case *ast.ValueSpec:
				if x.Type != nil && isRule(x.Type) {
					for _, v := range x.Values {
						check(v)
					}
				}
			case *ast.CallExpr:
				if isRule(x.Fun) && len(x.Args) == 1 {
					check(x.Args[0])
				}
			case *ast.CompositeLit:
				if at, ok := x.Type.(*ast.ArrayType); ok && isRule(at.Elt) {
					for _, v := range x.Elts {
						check(v)
					}
				}
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if found < len(registry) {
		t.Errorf("found %d rule ids in the module, fewer than the %d registered: the walk missed files", found, len(registry))
	}
}
