package main

import (
	"errors"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/trapline/trapline/internal/fakemodel"
	"github.com/trapline/trapline/internal/planner/llm"
)

// The documented workflows as scripts (testdata/script/*.txtar): each runs the real binary, named
// trapline inside the scripts (testscript.Main puts this test binary on the scripts' PATH under that
// name), from a temporary folder that holds the repository's examples/, policies/ and tools/ as
// symlinks, so that a command copied from README.md or docs/ runs there as written.
// TestDocCommandsAreRun (doccheck_test.go) checks that every documented command is one of them.

func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){
		"trapline": func() { os.Exit(run(os.Args[1:], os.Stdout, os.Stderr)) },
	})
}

// scriptDir is where the scripts live.
const scriptDir = "testdata/script"

// repoLinks are the repository's folders a script's work folder links to.
var repoLinks = []string{"examples", "policies", "tools"}

// passedEnv is the environment a script inherits (testscript starts from an empty one): where the
// Playwright driver, Chromium, Node.js and the build caches are.
var passedEnv = []string{"HOME", "XDG_CACHE_HOME", "PLAYWRIGHT_NODEJS_PATH", "PLAYWRIGHT_DRIVER_PATH", "PLAYWRIGHT_BROWSERS_PATH",
	"TRAPLINE_CHROMIUM", "TRAPLINE_TRACE", "CC", "LANG"}

func TestScripts(t *testing.T) {
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	testscript.Run(t, testscript.Params{
		Dir:                 scriptDir,
		RequireExplicitExec: true,
		RequireUniqueNames:  true,
		Setup: func(env *testscript.Env) error {
			for _, k := range passedEnv {
				if v, ok := os.LookupEnv(k); ok {
					env.Setenv(k, v)
				}
			}
			env.Setenv("REPO", root)
			// make test re-makes every proof (docs/proof-cache.md): a script that tests the proof
			// cache sets TRAPLINE_PROOFS itself, and each script keeps its proofs in its own folder.
			env.Setenv("TRAPLINE_PROOFS", "fresh")
			env.Setenv("TRAPLINE_CACHE", filepath.Join(env.WorkDir, ".trapline-cache"))
			for _, d := range repoLinks {
				if _, err := os.Stat(filepath.Join(root, d)); err != nil {
					continue // tools/node_modules is absent before make setup: [tools] is false then
				}
				if err := os.Symlink(filepath.Join(root, d), filepath.Join(env.WorkDir, d)); err != nil {
					return err
				}
			}
			return nil
		},
		Condition: scriptCondition,
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			"exits":     cmdExits,
			"fakemodel": cmdFakeModel,
			"waitfor":   cmdWaitFor,
			"waitdial":  cmdWaitDial,
			"portlock":  cmdPortLock,
		},
	})
}

// scriptCondition answers [browser] (Chromium's headless shell and Node.js for Playwright's driver:
// the scripts that run arms), [tools] (the agent tools of tools/, installed by make setup),
// [frameworks] (the agent-framework examples under examples/, installed by make setup) and
// [browseruse] (examples/browser-use-agent installed, its canvas addon built: make setup).
func scriptCondition(cond string) (bool, error) {
	switch cond {
	case "browser":
		if _, err := exec.LookPath("node"); err != nil {
			return false, nil
		}
		fi, err := os.Stat("/usr/lib/chromium/chromium-headless-shell")
		return err == nil && fi.Mode()&0o111 != 0, nil
	case "tools":
		_, err := os.Stat(filepath.Join("..", "..", "tools", "node_modules", "@playwright", "mcp", "cli.js"))
		return err == nil, nil
	case "frameworks": // the agent-framework examples, installed by make setup (npm ci in each)
		for _, p := range []string{"openai-agents/node_modules/@openai/agents", "stagehand-agent/node_modules/@browserbasehq/stagehand",
			"ai-sdk-anthropic/node_modules/@ai-sdk/anthropic", "magnitude-agent/node_modules/magnitude-core"} {
			if _, err := os.Stat(filepath.Join("..", "..", "examples", p, "package.json")); err != nil {
				return false, nil
			}
		}
		return true, nil
	case "browseruse": // examples/browser-use-agent, installed and its canvas addon built (make setup)
		_, err := os.Stat(filepath.Join("..", "..", "examples", "browser-use-agent", "node_modules", ".trapline-lock-sha256"))
		return err == nil, nil
	}
	return false, errors.New("unknown condition " + cond)
}

// cmdExits is `exits CODE PROGRAM ARGS...`: run PROGRAM like exec (its stdout and stderr are the next
// commands' to match) and fail unless it exits with CODE. The exit code is what a CI gate reads, so
// the scripts check it exactly, not only zero or not.
func cmdExits(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 {
		ts.Fatalf("usage: exits CODE PROGRAM [ARGS...]")
	}
	want, err := strconv.Atoi(args[0])
	if err != nil {
		ts.Fatalf("exits: bad code %q", args[0])
	}
	err = ts.Exec(args[1], args[2:]...)
	got := 0
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		got = ee.ExitCode()
	case err != nil:
		ts.Fatalf("exits: %v", err)
	}
	if got != want {
		ts.Fatalf("%s exited %d, want %d", args[1], got, want)
	}
}

// cmdFakeModel is `fakemodel NAME=CHARACTER...`: start the project's fake OpenAI-compatible model
// (internal/fakemodel) on 127.0.0.1 for the rest of the script, each NAME answering as CHARACTER
// (obedient, diligent, lazy, ...), and point the llm planner at it (TRAPLINE_LLM_BASE_URL), so that a
// documented --planner llm command runs as written with no network and no model.
func cmdFakeModel(ts *testscript.TestScript, neg bool, args []string) {
	if neg {
		ts.Fatalf("usage: fakemodel NAME=CHARACTER...")
	}
	aliases := map[string]string{}
	for _, a := range args {
		name, character, ok := strings.Cut(a, "=")
		if !ok || name == "" || !slices.Contains(fakemodel.Characters(), character) {
			ts.Fatalf("fakemodel: %q: want NAME=CHARACTER, CHARACTER one of %s", a, strings.Join(fakemodel.Characters(), ", "))
		}
		aliases[name] = character
	}
	srv := fakemodel.Start(aliases)
	ts.Defer(srv.Close)
	ts.Setenv(llm.EnvBaseURL, srv.URL())
}

// waitForTimeout bounds waitfor: a world or a proxy is up in seconds, even on a loaded machine.
const waitForTimeout = 90 * time.Second

// cmdWaitFor is `waitfor FILE REGEXP [NAME]`: wait until FILE has a line matching REGEXP (a server
// started in the background with `exec sh -c '... >FILE' &` has printed it), then, with NAME, set
// the environment variable NAME to the match's first group (the URL it printed). It reads the file
// again every 20 ms (a wait on the condition, not a sleep) and fails after waitForTimeout.
func cmdWaitFor(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 || len(args) > 3 {
		ts.Fatalf("usage: waitfor FILE REGEXP [NAME]")
	}
	re, err := regexp.Compile("(?m)" + args[1])
	if err != nil {
		ts.Fatalf("waitfor: %v", err)
	}
	file := ts.MkAbs(args[0])
	deadline := time.Now().Add(waitForTimeout)
	for {
		b, _ := os.ReadFile(file) // absent until the shell's redirection creates it
		if m := re.FindStringSubmatch(string(b)); m != nil {
			if len(args) == 3 {
				if len(m) < 2 {
					ts.Fatalf("waitfor: %q has no group to set %s from", args[1], args[2])
				}
				ts.Setenv(args[2], m[1])
			}
			return
		}
		if time.Now().After(deadline) {
			ts.Fatalf("waitfor: no line of %s matched %q in %s; it holds:\n%s", args[0], args[1], waitForTimeout, strings.TrimSpace(string(b)))
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// cmdWaitDial is `waitdial HOST:PORT`: wait until a TCP connection to HOST:PORT succeeds (a server
// started in the background listens), trying again every 20 ms, failing after waitForTimeout.
func cmdWaitDial(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: waitdial HOST:PORT")
	}
	deadline := time.Now().Add(waitForTimeout)
	for {
		c, err := net.DialTimeout("tcp", args[0], time.Second)
		if err == nil {
			_ = c.Close()
			return
		}
		if time.Now().After(deadline) {
			ts.Fatalf("waitdial: %s does not answer after %s: %v", args[0], waitForTimeout, err)
		}
		time.Sleep(20 * time.Millisecond)
	}

}

// portLockTimeout bounds portlock's wait for another run's script that holds the same port: the
// longest script takes about two minutes on a loaded machine.
const portLockTimeout = 10 * time.Minute

// cmdPortLock is `portlock HOST:PORT`: take, for the rest of the script, this machine's lock on a
// fixed port a documented command listens on (the docs put the user's staging app on one), waiting
// while another process holds it (another go test of these scripts: two runs on one machine must not
// share an app and judge each other's effects), then fail unless the port is free: a command that
// then talked to someone else's server would judge that server.
func cmdPortLock(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: portlock HOST:PORT")
	}
	name := filepath.Join(os.TempDir(), "trapline-port-"+strings.NewReplacer(":", "-", "/", "-").Replace(args[0])+".lock")
	f, err := os.OpenFile(name, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		ts.Fatalf("portlock: %v", err)
	}
	deadline := time.Now().Add(portLockTimeout)
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		if err == nil {
			break
		}
		if !errors.Is(err, syscall.EWOULDBLOCK) || time.Now().After(deadline) {
			_ = f.Close()
			ts.Fatalf("portlock: %s: %v (another run of these scripts held it for %s)", name, err, portLockTimeout)
		}
		time.Sleep(50 * time.Millisecond)
	}
	ts.Defer(func() { _ = f.Close() }) // closing the file releases the lock
	l, err := net.Listen("tcp", args[0])
	if err != nil {
		ts.Fatalf("portlock: %s is not free (%v): another program listens there, and the documented commands need it", args[0], err)
	}
	if err := l.Close(); err != nil {
		ts.Fatalf("portlock: %v", err)
	}
}
