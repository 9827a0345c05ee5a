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

// envFuncs are the os functions that read or change the process environment.
var envFuncs = map[string]bool{"Getenv": true, "LookupEnv": true, "Setenv": true, "Unsetenv": true, "Clearenv": true,
	"Environ": true, "ExpandEnv": true}

// pendingEnv are the library files that still touch the process environment (issue 29.7), each with
// why it was left: the list only shrinks. A file here that no longer calls one fails too, so the list
// stays true. Everything else reads the environment at the edge: cmd/ (and the specs' suite set-up)
// fill the libraries' options (reports.WriteGitHub's step summary file, ...).
var pendingEnv = map[string]string{
	// The browser edge's variables (TRAPLINE_CHROMIUM, TRAPLINE_TRACE, TRAPLINE_BROWSER_WS) are read
	// where users' suites and the library's own tests rely on them (browser.Launch(browser.Options{}));
	// playwright-go reads PLAYWRIGHT_NODEJS_PATH from the environment only, so the library sets it
	// when unset rather than let Playwright download a Node.js.
	"agentkit/browser/executable.go":         "TRAPLINE_CHROMIUM: to become an Options field filled by the commands",
	"agentkit/browser/trace.go":              "TRAPLINE_TRACE: to become a TraceDetail filled by the commands",
	"agentkit/browser/remote.go":             "TRAPLINE_BROWSER_WS: to become an endpoint the commands pass",
	"agentkit/browser/install.go":            "PLAYWRIGHT_NODEJS_PATH: playwright-go takes the Node.js path from the environment only; the refusal of PLAYWRIGHT_DISABLE_FORCED_CHROMIUM_PROXIED_LOOPBACK, which Playwright itself reads",
	"agentkit/browser/netlink.go":            "CC, and Chromium's environment (the parent's plus the netlink shim)",
	"harness/command.go":                     "an agent under test's environment: the parent's, minus the proxy variables",
	"harness/probe_command.go":               "a state probe's environment: the parent's plus the trap and phase",
	"internal/agenttools/env.go":             "an agent tool's environment: the parent's, filtered",
	"internal/agenttools/agentbrowser.go":    "agent-browser's own variables, left to the user when set",
	"internal/agenttools/fakemcp/fakemcp.go": "a test double run as a process: the harness hands it the run's variables",
	"internal/container/testcontainers.go":   "TESTCONTAINERS_RYUK_DISABLED and TESTCONTAINERS_HOST_OVERRIDE, set when unset: testcontainers-go reads them from the process environment only (its internal config, once; DockerProvider.DaemonHost)",
}

// TestOnlyTheEdgeTouchesTheEnvironment: docs/architecture.md says the commands (cmd/) and test
// set-up touch the process environment, libraries take options. It walks every non-test file of the
// module outside cmd/, specs/ and examples/ and fails on a call of os.Getenv, LookupEnv, Setenv,
// Unsetenv, Clearenv, Environ or ExpandEnv in a file pendingEnv does not list.
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

// envCalls lists the environment calls in the Go file at path ("os.Getenv at line 12"), whatever
// name the file imports os under.
func envCalls(path string) ([]string, error) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, path, nil, 0)
	if err != nil {
		return nil, err
	}
	name := ""
	for _, im := range f.Imports {
		if p, _ := strconv.Unquote(im.Path.Value); p == "os" {
			name = "os"
			if im.Name != nil {
				name = im.Name.Name
			}
		}
	}
	if name == "" || name == "_" {
		return nil, nil
	}
	var out []string
	ast.Inspect(f, func(n ast.Node) bool {
		sel, ok := n.(*ast.SelectorExpr)
		if !ok || !envFuncs[sel.Sel.Name] {
			return true
		}
		if id, ok := sel.X.(*ast.Ident); ok && id.Name == name && id.Obj == nil {
			out = append(out, "os."+sel.Sel.Name+" at line "+strconv.Itoa(fset.Position(sel.Pos()).Line))
		}
		return true
	})
	return out, nil
}
