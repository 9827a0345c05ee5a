package agentkit_test

import (
	"fmt"
	"go/ast"
	"go/token"
	"sort"
	"testing"

	"github.com/fzipp/gocyclo"
)

// Function size limits (issue 50.5, STYLE.md "Functions a reader can hold"): logic stays under a
// screen and under a cyclomatic count a reader can follow. A long table is data, not logic: a
// function whose body is one composite literal (a table) is not counted.
const (
	maxFuncLines      = 80
	maxFuncComplexity = 30
)

// longFuncs are the functions over a limit when the limit came in, each with its size then
// (lines/complexity): the list only shrinks. A function here may not grow past its figures, and one
// that is back under both limits fails until its line goes, so the list stays true.
var longFuncs = map[string]funcSize{
	"internal/agenttools/loop.go:driver.steps": {90, 18},
}

type funcSize struct{ lines, complexity int }

func (s funcSize) String() string {
	return fmt.Sprintf("%d lines, complexity %d", s.lines, s.complexity)
}

func (s funcSize) over() bool { return s.lines > maxFuncLines || s.complexity > maxFuncComplexity }

// TestFunctionsStayShort walks every non-test, non-generated Go file of the module outside examples/
// and fails on a function over maxFuncLines lines or over maxFuncComplexity (gocyclo's count) that
// longFuncs does not list, on a listed one that grew, and on a listed one that is short now.
func TestFunctionsStayShort(t *testing.T) {
	sizes, err := moduleFuncSizes("..")
	if err != nil {
		t.Fatal(err)
	}
	var problems []string
	for name, s := range sizes {
		was, listed := longFuncs[name]
		switch {
		case listed && !s.over():
			problems = append(problems, fmt.Sprintf("%s is %s now, within the limits: take its line out of longFuncs", name, s))
		case listed && (s.lines > was.lines || s.complexity > was.complexity):
			problems = append(problems, fmt.Sprintf("%s grew to %s (listed at %s): split it", name, s, was))
		case !listed && s.over():
			problems = append(problems, fmt.Sprintf("%s is %s, over %d lines or complexity %d: split it", name, s, maxFuncLines, maxFuncComplexity))
		}
	}
	for name := range longFuncs {
		if _, ok := sizes[name]; !ok {
			problems = append(problems, fmt.Sprintf("%s is gone: take its line out of longFuncs", name))
		}
	}
	sort.Strings(problems)
	for _, p := range problems {
		t.Error(p)
	}
}

// moduleFuncSizes measures every function of the module's library and command code below root.
func moduleFuncSizes(root string) (map[string]funcSize, error) {
	out := map[string]funcSize{}
	err := walkLibraryFiles(root, map[string]bool{"examples": true}, func(rel string, fset *token.FileSet, f *ast.File) {
		if ast.IsGenerated(f) {
			return
		}
		for _, decl := range f.Decls {
			fn, ok := decl.(*ast.FuncDecl)
			if !ok || fn.Body == nil || isTable(fn.Body) {
				continue
			}
			lines := fset.Position(fn.End()).Line - fset.Position(fn.Pos()).Line + 1
			out[rel+":"+funcName(fn)] = funcSize{lines: lines, complexity: gocyclo.Complexity(fn)}
		}
	})
	return out, err
}

// isTable reports whether a body is one return or assignment of a composite literal: data.
func isTable(body *ast.BlockStmt) bool {
	if len(body.List) != 1 {
		return false
	}
	var expr ast.Expr
	switch s := body.List[0].(type) {
	case *ast.ReturnStmt:
		if len(s.Results) == 1 {
			expr = s.Results[0]
		}
	case *ast.AssignStmt:
		if len(s.Rhs) == 1 {
			expr = s.Rhs[0]
		}
	}
	_, ok := expr.(*ast.CompositeLit)
	return ok
}

// funcName is Recv.Name for a method, Name for a function.
func funcName(fn *ast.FuncDecl) string {
	if fn.Recv == nil || len(fn.Recv.List) == 0 {
		return fn.Name.Name
	}
	t := fn.Recv.List[0].Type
	if s, ok := t.(*ast.StarExpr); ok {
		t = s.X
	}
	if ix, ok := t.(*ast.IndexExpr); ok {
		t = ix.X
	}
	if id, ok := t.(*ast.Ident); ok {
		return id.Name + "." + fn.Name.Name
	}
	return fn.Name.Name
}
