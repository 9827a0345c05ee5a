package main

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/trapline/trapline/agentkit/browser"
	"github.com/trapline/trapline/agentkit/planner"
	"github.com/trapline/trapline/reports"
	"github.com/trapline/trapline/traps"
)

func TestRunUsage(t *testing.T) {
	checkUsage(t, []usageCase{
		{[]string{"run", "--agent", "robot"}, `--agent "robot"`},
		{[]string{"run", "--agent", "external"}, "needs the agent's command"},
		{[]string{"run", "external"}, "needs the agent's command"},
		{[]string{"run", "exec"}, "needs the planner command"},
		{[]string{"run", "--mcp-url", "x"}, "--mcp-url is not a flag of trapline run: it is one of trapline run mcp"},
		{[]string{"run", "--traps", "decoy-delete", "--mcp-url", "x"}, "--mcp-url is not a flag of trapline run: it is one of trapline run mcp"},
		{[]string{"run", "--world", "cloud"}, "want embedded, container or auto"},
		{[]string{"run", "--world", "cloud"}, `--world "cloud"`},
		{[]string{"run", "--traps", "decoy-delete,no-such-trap"}, `"no-such-trap" is no trap id or label`},
		{[]string{"run", "external", "--timeout", "-1s", "--", "true"}, "must be positive"},
		{[]string{"run", "--", "node", "x.js"}, "unexpected arguments"},
		{[]string{"run", "--bogus"}, "flag provided but not defined"},
		{[]string{"run", "--storage-state", "no-such-state.json"}, "--storage-state: storage state no-such-state.json"},
		{[]string{"run", "--storage-state", "run_test.go"}, "not a Playwright storage-state file"},
	})
}

func TestSelectTraps(t *testing.T) {
	got, err := selectTraps("trap:popup, destructive ,decoy-delete")
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, tr := range got {
		ids = append(ids, tr.ID)
		if tr.Category != "destructive" && tr.ID != "popup" {
			t.Errorf("selected %s (%s)", tr.ID, tr.Category)
		}
	}
	var order []string // the catalog's order
	for _, tr := range traps.Catalog() {
		if slices.Contains(ids, tr.ID) {
			order = append(order, tr.ID)
		}
	}
	if len(ids) < 3 || !slices.Equal(ids, order) || strings.Count(strings.Join(ids, ","), "decoy-delete") != 1 {
		t.Errorf("selection %v: want catalog order (%v), decoy-delete once", ids, order)
	}
	all, err := selectTraps("")
	if err != nil || len(all) < 20 {
		t.Errorf("empty selection = %d traps, %v; want the catalog", len(all), err)
	}
}

func TestPlannerFor(t *testing.T) {
	ctx := context.Background()
	if f, _, err := plannerFor(ctx, "adversary", "", nil, nil); err != nil || f == nil || f(decoyDelete(t), "guarded") == nil {
		t.Errorf("adversary: %v", err)
	}
	if _, _, err := plannerFor(ctx, "adversary", "gpt", nil, nil); err == nil {
		t.Error("--model with the adversary must be refused")
	}
	// llm: the configuration comes from the environment and is checked before any run.
	t.Setenv("TRAPLINE_LLM_BASE_URL", "http://127.0.0.1:9/v1")
	t.Setenv("TRAPLINE_LLM_MODEL", "")
	if _, _, err := plannerFor(ctx, "llm", "", nil, nil); err == nil || !strings.Contains(err.Error(), "TRAPLINE_LLM_MODEL") {
		t.Errorf("llm without a model: err %v, want one naming TRAPLINE_LLM_MODEL", err)
	}
	if f, _, err := plannerFor(ctx, "llm", "local-model", nil, nil); err != nil || f(decoyDelete(t), "guarded") == nil {
		t.Errorf("llm with --model: %v", err)
	}
	// exec: one process per run, stopped by release; a command that cannot start fails that run's
	// planner, not the whole command.
	f, release, err := plannerFor(ctx, "exec", "", []string{"/nonexistent/planner"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	p := f(decoyDelete(t), "guarded")
	if _, err := p.Next(ctx, planner.Input{}); err == nil || !strings.Contains(err.Error(), "start the exec planner") {
		t.Errorf("exec planner that cannot start: Next err %v", err)
	}
	if err := release(); err != nil {
		t.Errorf("release: %v", err)
	}
}

func decoyDelete(t *testing.T) (tr traps.Trap) {
	t.Helper()
	list, err := selectTraps("decoy-delete")
	if err != nil {
		t.Fatal(err)
	}
	return list[0]
}

func TestAgentNameFrom(t *testing.T) {
	dir := t.TempDir()
	script := filepath.Join(dir, "external-agent", "agent.js")
	if err := os.MkdirAll(filepath.Dir(script), 0o755); err != nil {
		t.Fatal(err)
	}
	writeFile(t, script, "")
	py := writeFile(t, filepath.Join(dir, "My_Agent.py"), "")
	for _, c := range []struct {
		cmd  []string
		want string
	}{
		{[]string{"node", script}, "external-agent"},
		{[]string{"python3", py}, "my-agent"},
		{[]string{"sh", "-c", "curl x"}, "sh"},
		{[]string{"/usr/local/bin/reference"}, "external"},
	} {
		if got := agentNameFrom(c.cmd); got != c.want {
			t.Errorf("agentNameFrom(%v) = %q, want %q", c.cmd, got, c.want)
		}
	}
}

// TestRunExternal runs a one-line agent (curl through the world's proxy) against one trap: it reads the
// start page and nothing else, so the trap holds; the summary and the report name the agent.
func TestRunExternal(t *testing.T) {
	noProofCache(t)
	if _, err := os.Stat(browser.DefaultChromium); err != nil {
		t.Skip("no chromium")
	}
	if _, err := exec.LookPath("curl"); err != nil {
		t.Skip("no curl")
	}
	out := t.TempDir()
	var stdout, stderr bytes.Buffer
	code := run([]string{"run", "--agent", "external", "--name", "reader", "--traps", "decoy-delete", "--out", out, "--",
		"sh", "-c", `curl -sf -o /dev/null "$TRAPLINE_START_URL"`}, &stdout, &stderr)
	if code != exitOK {
		t.Fatalf("exit %d, want 0\n%s\n%s", code, stdout.String(), stderr.String())
	}
	s, err := reports.ReadJSON(filepath.Join(out, "summary.json"))
	if err != nil {
		t.Fatal(err)
	}
	// The adversary's control arm first (its attempts tie the black-box arm's refusals), then the agent.
	if len(s.Entries) != 2 || s.Entries[0].Arm != "control" || s.Entries[0].Status != reports.StatusPass ||
		s.Entries[1].Agent != "reader" || s.Entries[1].Arm != "blackbox" || s.Entries[1].Status != reports.StatusPass {
		t.Fatalf("entries = %+v", s.Entries)
	}
	if !strings.Contains(stdout.String(), "blackbox/reader") {
		t.Errorf("table lacks the agent:\n%s", stdout.String())
	}
	if _, err := os.Stat(filepath.Join(out, "report.html")); err != nil {
		t.Error(err)
	}
	// The same agent that also deletes is caught: exit 1.
	code = run([]string{"run", "--agent", "external", "--name", "deleter", "--traps", "decoy-delete", "--out", out, "--",
		"sh", "-c", `curl -sf -o /dev/null "$TRAPLINE_START_URL"; curl -s -o /dev/null -X POST "$TRAPLINE_START_URL/elimina"`}, &stdout, &stderr)
	if code != exitFailed {
		t.Fatalf("deleter: exit %d, want %d\n%s", code, exitFailed, stderr.String())
	}
}
