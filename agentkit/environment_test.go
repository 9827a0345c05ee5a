package agentkit_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// envFuncs are the os (and syscall) functions that read or change the process environment.
var envFuncs = map[string]bool{"Getenv": true, "LookupEnv": true, "Setenv": true, "Unsetenv": true, "Clearenv": true,
	"Environ": true, "ExpandEnv": true}

// pendingEnv are the library files that still touch the process environment (issue 29.7), each
// because a third-party library reads that variable from the process environment and takes it from
// nowhere else: the list only shrinks. A file here that no longer calls one fails too, so the list
// stays true. Everything else takes what it needs from its caller: cmd/ (and the specs' suite
// set-up, and tests) pass os.Environ() (browser.Options.Environ, harness.Options.Environ, ...) or
// os.Getenv (llm.ConfigFromEnv, container.EngineFromEnv, credentials.Load, ...).
var pendingEnv = map[string]string{
	// playwright-go v0.6401.0 takes the Node.js it runs the driver with from PLAYWRIGHT_NODEJS_PATH
	// only (run.go getNodeExecutable; RunOptions has no field for it) and downloads one when it is
	// unset, so the browser sets it to the system's node when unset. The Playwright driver, which
	// inherits this process's environment (playwright-go sets no Cmd.Env), reads
	// PLAYWRIGHT_DISABLE_FORCED_CHROMIUM_PROXIED_LOOPBACK itself, so the refusal of it must read the
	// same environment.
	"agentkit/browser/install.go": "PLAYWRIGHT_NODEJS_PATH set when unset, PLAYWRIGHT_DISABLE_FORCED_CHROMIUM_PROXIED_LOOPBACK refused: playwright-go and its driver read them from the process environment only",
	// testcontainers-go v0.45.0 reads TESTCONTAINERS_RYUK_DISABLED from its internal configuration
	// (the environment or ~/.testcontainers.properties, once) and TESTCONTAINERS_HOST_OVERRIDE with
	// os.LookupEnv (DockerProvider.DaemonHost), neither with an option.
	"internal/container/testcontainers.go": "TESTCONTAINERS_RYUK_DISABLED and TESTCONTAINERS_HOST_OVERRIDE set when unset: testcontainers-go reads them from the process environment only",
}

// TestOnlyTheEdgeTouchesTheEnvironment: docs/architecture.md says the commands (cmd/) and test
// set-up touch the process environment, libraries take options. It walks every non-test file of the
// module outside cmd/, specs/ and examples/ and fails on a call of os.Getenv, LookupEnv, Setenv,
// Unsetenv, Clearenv, Environ or ExpandEnv (or syscall's) in a file pendingEnv does not list.
func TestOnlyTheEdgeTouchesTheEnvironment(t *testing.T) {
	root := ".."
	found := map[string][]string{}
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
				rel == "cmd", rel == "specs", rel == "examples":
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(rel, ".go") || strings.HasSuffix(rel, "_test.go") {
			return nil
		}
		calls, err := envCalls(path)
		if err != nil {
			return err
		}
		if len(calls) > 0 {
			found[rel] = calls
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	files := make([]string, 0, len(found))
	for f := range found {
		files = append(files, f)
	}
	sort.Strings(files)
	for _, f := range files {
		if _, ok := pendingEnv[f]; !ok {
			t.Errorf("%s calls %s: a library takes options; only cmd/ (and test set-up) reads the environment", f, strings.Join(found[f], ", "))
		}
	}
	for f := range pendingEnv {
		if found[f] == nil {
			t.Errorf("%s is listed in pendingEnv but touches the environment no more: take it off the list", f)
		}
	}
}

// envCalls lists the environment calls in the Go file at path ("os.Getenv at line 12"), of os or of
// syscall (which os wraps), whatever names the file imports them under.
func envCalls(path string) ([]string, error) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, path, nil, 0)
	if err != nil {
		return nil, err
	}
	names := map[string]string{} // local name -> package
	for _, im := range f.Imports {
		p, _ := strconv.Unquote(im.Path.Value)
		if p != "os" && p != "syscall" {
			continue
		}
		name := p
		if im.Name != nil {
			name = im.Name.Name
		}
		if name != "_" {
			names[name] = p
		}
	}
	if len(names) == 0 {
		return nil, nil
	}
	var out []string
	ast.Inspect(f, func(n ast.Node) bool {
		sel, ok := n.(*ast.SelectorExpr)
		if !ok || !envFuncs[sel.Sel.Name] {
			return true
		}
		if id, ok := sel.X.(*ast.Ident); ok && names[id.Name] != "" && id.Obj == nil {
			out = append(out, names[id.Name]+"."+sel.Sel.Name+" at line "+strconv.Itoa(fset.Position(sel.Pos()).Line))
		}
		return true
	})
	return out, nil
}

// TestEnvCallsFindsEveryForm: the checker sees a renamed import and syscall, and not a local
// variable that happens to be called os.
func TestEnvCallsFindsEveryForm(t *testing.T) {
	src := `package p

import (
	o "os"
	"syscall"
)

type fake struct{}

func (fake) Getenv(string) string { return "" }

func f() {
	_ = o.Getenv("A")
	_ = syscall.Environ()
	os := fake{}
	_ = os.Getenv("B")
}
`
	p := filepath.Join(t.TempDir(), "p.go")
	if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	got, err := envCalls(p)
	if err != nil {
		t.Fatal(err)
	}
	if want := "os.Getenv at line 13, syscall.Environ at line 14"; strings.Join(got, ", ") != want {
		t.Fatalf("envCalls = %q, want %q", got, want)
	}
}
