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

// TestEveryRuleConstantInCodeIsRegistered type-checks every non-test package of the module and finds
// every constant expression of type policy.Rule (a Rule constant, a literal converted to Rule or given
// where a Rule is expected: a struct field, an argument, a comparison). Each must be in the registry:
// a rule renamed in the registry breaks the build where its constant was used, and one spelled as a
// literal that is not registered fails here. It is the typed counterpart of
// TestEveryRuleInTheModuleIsRegistered, which reads the syntax of test files too.
func TestEveryRuleConstantInCodeIsRegistered(t *testing.T) {
	if testing.Short() {
		t.Skip("type-checks the whole module")
	}
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
	found := 0
	for _, p := range mine {
		var files []*ast.File
		for _, name := range p.files {
			f, err := parser.ParseFile(fset, filepath.Join(p.dir, name), nil, 0)
			if err != nil {
				t.Fatal(err)
			}
			files = append(files, f)
		}
		info := &types.Info{Types: map[ast.Expr]types.TypeAndValue{}}
		conf := types.Config{Importer: imp, Error: func(error) {}}
		if _, err := conf.Check(p.path, fset, files, info); err != nil {
			t.Fatalf("type-check %s: %v", p.path, err)
		}
		for e, tv := range info.Types {
			named, ok := tv.Type.(*types.Named)
			if !ok || tv.Value == nil || named.Obj().Name() != "Rule" || named.Obj().Pkg() == nil || named.Obj().Pkg().Path() != policyPath {
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
}
