package policy

import (
	"bufio"
	"bytes"
	"go/ast"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

const policyPath = "github.com/trapline/trapline/agentkit/policy"

// TestRulesStayTypedInCode type-checks every non-test package of the module once and runs two checks
// on it (subtests).
//
// "every constant is registered" finds every constant expression of type policy.Rule (a Rule
// constant, a literal converted to Rule or given where a Rule is expected: a struct field, an argument,
// a comparison). Each must be in the registry: a rule renamed in the registry breaks the build where
// its constant was used, and one spelled as a literal that is not registered fails here. It is the
// typed counterpart of TestEveryRuleInTheModuleIsRegistered, which reads the syntax of test files too.
//
// "no conversion to string" (issue 29) fails on a conversion string(x) where x is a policy.Rule or a
// policy.Layer, outside the types' own String methods: a rule compared or looked up as a string stops
// matching silently when it is renamed, a typed one fails to compile.
func TestRulesStayTypedInCode(t *testing.T) {
	if testing.Short() {
		t.Skip("type-checks the whole module")
	}
	fset, pkgs := typeCheckModule(t)
	t.Run("every constant is registered", func(t *testing.T) {
		found := 0
		for _, p := range pkgs {
			for e, tv := range p.info.Types {
				if tv.Value == nil || !isPolicyType(tv.Type, "Rule") {
					continue
				}
				found++
				if id := Rule(strings.Trim(tv.Value.ExactString(), `"`)); id != "" && !id.Registered() {
					t.Errorf("%s: rule %q is not registered in policy.registry (agentkit/policy/rules.go)", fset.Position(e.Pos()), id)
				}
			}
		}
		if found < len(registry) {
			t.Errorf("found %d rule constants in the module's code, fewer than the %d registered: the check missed packages", found, len(registry))
		}
	})
	t.Run("no conversion to string", func(t *testing.T) {
		for _, p := range pkgs {
			for _, f := range p.files {
				for _, d := range f.Decls {
					if fd, ok := d.(*ast.FuncDecl); ok && isStringMethod(p.info, fd) {
						continue // Rule.String and Layer.String are the one place a rule becomes text
					}
					ast.Inspect(d, func(n ast.Node) bool {
						call, ok := n.(*ast.CallExpr)
						if !ok || len(call.Args) != 1 {
							return true
						}
						fun, arg := p.info.Types[call.Fun], p.info.Types[call.Args[0]]
						if !fun.IsType() || !types.Identical(fun.Type, types.Typ[types.String]) {
							return true
						}
						for _, name := range []string{"Rule", "Layer"} {
							if isPolicyType(arg.Type, name) {
								t.Errorf("%s: string(...) of a policy.%s: keep it typed (compare, key and store the %[2]s; its String() where text is wanted)",
									fset.Position(call.Pos()), name)
							}
						}
						return true
					})
				}
			}
		}
	})
}

// checkedPkg is one type-checked non-test package of the module.
type checkedPkg struct {
	path  string
	files []*ast.File
	info  *types.Info
}

// typeCheckModule type-checks every non-test package of the module from source, its imports from
// the compiler's export data (go list -export).
func typeCheckModule(t *testing.T) (*token.FileSet, []checkedPkg) {
	t.Helper()
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("go", "list", "-export", "-deps", "-f", "{{.ImportPath}}\t{{.Export}}\t{{.Dir}}\t{{.Module}}\t{{join .GoFiles \" \"}}", "./...")
	cmd.Dir = root
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, stderr.String())
	}
	exports := map[string]string{}
	type pkg struct {
		path, dir string
		files     []string
	}
	var mine []pkg
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		f := strings.Split(sc.Text(), "\t")
		if len(f) != 5 {
			continue
		}
		exports[f[0]] = f[1]
		if strings.HasPrefix(f[3], "github.com/trapline/trapline") && f[4] != "" {
			mine = append(mine, pkg{f[0], f[2], strings.Fields(f[4])})
		}
	}
	fset := token.NewFileSet()
	imp := importer.ForCompiler(fset, "gc", func(path string) (io.ReadCloser, error) {
		return os.Open(exports[path])
	})
	var checked []checkedPkg
	for _, p := range mine {
		var files []*ast.File
		for _, name := range p.files {
			f, err := parser.ParseFile(fset, filepath.Join(p.dir, name), nil, 0)
			if err != nil {
				t.Fatal(err)
			}
			files = append(files, f)
		}
		info := &types.Info{Types: map[ast.Expr]types.TypeAndValue{}, Defs: map[*ast.Ident]types.Object{}}
		conf := types.Config{Importer: imp, Error: func(error) {}}
		if _, err := conf.Check(p.path, fset, files, info); err != nil {
			t.Fatalf("type-check %s: %v", p.path, err)
		}
		checked = append(checked, checkedPkg{p.path, files, info})
	}
	return fset, checked
}

// isPolicyType says whether t is the named type policy.<name>.
func isPolicyType(t types.Type, name string) bool {
	named, ok := t.(*types.Named)
	return ok && named.Obj().Name() == name && named.Obj().Pkg() != nil && named.Obj().Pkg().Path() == policyPath
}

// isStringMethod says whether fd is the String method of policy.Rule or policy.Layer.
func isStringMethod(info *types.Info, fd *ast.FuncDecl) bool {
	fn, ok := info.Defs[fd.Name].(*types.Func)
	if !ok || fn.Name() != "String" {
		return false
	}
	recv := fn.Type().(*types.Signature).Recv()
	return recv != nil && (isPolicyType(recv.Type(), "Rule") || isPolicyType(recv.Type(), "Layer"))
}
