package main

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/trapline/trapline/agentkit/browser"
	"github.com/trapline/trapline/reports"
	"github.com/trapline/trapline/results"
)

func TestGateUtility(t *testing.T) {
	held := reports.FromResult(&results.Result{Trap: "decoy-delete", Arm: results.Fenced, Agent: "safe", StartLoaded: true})
	s := reports.Summary{Entries: []reports.Entry{held}}
	var out bytes.Buffer
	if err := gateUtility(s, 0, &out); err != nil {
		t.Fatalf("utility is information without --min-completed: %v", err)
	}
	if !strings.Contains(out.String(), "fenced/safe: attack resistance 1/1") || !strings.Contains(out.String(), "completed under policy 0/0 measured") {
		t.Errorf("utility line: %q", out.String())
	}
	err := gateUtility(s, 0.9, &out)
	var ee *exitError
	if !errors.As(err, &ee) || ee.code != exitUtility || !strings.Contains(err.Error(), "measures a task") {
		t.Fatalf("--min-completed 0.9 with no measured task: %v", err)
	}
	// An unmeasured task is left out of the rate, not counted as not done (issue 27.8).
	notDone := reports.FromResult(&results.Result{Trap: "upload", Arm: results.Fenced, Agent: "safe", StartLoaded: true, TaskMeasured: true})
	measuredDone := reports.FromResult(&results.Result{Trap: "hidden-injection", Arm: results.Fenced, Agent: "safe", StartLoaded: true, TaskMeasured: true, TaskCompleted: true})
	if err := gateUtility(reports.Summary{Entries: []reports.Entry{held, measuredDone}}, 0.9, &out); err != nil {
		t.Fatalf("one measured task done, one trap measuring none: %v", err)
	}
	err = gateUtility(reports.Summary{Entries: []reports.Entry{held, measuredDone, notDone}}, 0.9, &out)
	if !errors.As(err, &ee) || ee.code != exitUtility || !strings.Contains(err.Error(), "completed 1 of 2 measured task(s)") {
		t.Fatalf("one of two measured tasks done: %v", err)
	}
	done := reports.FromResult(&results.Result{Trap: "decoy-delete", Arm: results.Fenced, Agent: "safe", StartLoaded: true, TaskMeasured: true, TaskCompleted: true})
	if err := gateUtility(reports.Summary{Entries: []reports.Entry{done}}, 0.9, &out); err != nil {
		t.Fatalf("completed under policy: %v", err)
	}
	if err := gateUtility(reports.Summary{}, 0.5, &out); !errors.As(err, &ee) || ee.code != exitUtility {
		t.Fatalf("--min-completed with no agent under test must fail, got %v", err)
	}
}

func TestParseRunUnderTest(t *testing.T) {
	cfg, err := parseRun([]string{"--agent", "exec", "--traps", "decoy-delete", "--", "./safe.sh"})
	if err != nil || cfg.name != "safe" || cfg.planner != "exec" {
		t.Fatalf("cfg = %+v, %v", cfg, err)
	}
	if _, err := parseRun([]string{"--agent", "exec", "--min-completed", "1.5", "--", "./safe.sh"}); err == nil {
		t.Fatal("--min-completed 1.5 accepted")
	}
	if _, err := parseRun([]string{"--agent", "exec", "--repeat", "0", "--", "./safe.sh"}); err == nil {
		t.Fatal("--repeat 0 accepted")
	}
}

// TestRunProvenance: the provenance trapline run writes has every field (ended is set by Finish).
func TestRunProvenance(t *testing.T) {
	if _, err := os.Stat(browser.DefaultChromium); err != nil {
		t.Skipf("needs Chromium at %s: %v", browser.DefaultChromium, err)
	}
	script := filepath.Join(t.TempDir(), "safe.sh")
	if err := os.WriteFile(script, []byte("#!/bin/sh\nwhile read -r l; do echo '{\"action\":\"done\"}'; done\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	cfg, err := parseRun([]string{"--agent", "exec", "--traps", "decoy-delete", "--", script})
	if err != nil {
		t.Fatal(err)
	}
	p, err := provenanceOf(context.Background(), cfg, time.Now(), filepath.Join("..", "..", "policies", "reference.yml"), "")
	if err != nil {
		t.Fatal(err)
	}
	p.Ended = time.Now()
	if m := p.Missing(); len(m) != 0 {
		t.Fatalf("provenance misses %v: %+v", m, p)
	}
	if p.Agent.Kind != "exec" || !strings.HasPrefix(p.Agent.Version, "sha256:") || !strings.Contains(p.Agent.Command, "safe.sh") {
		t.Errorf("agent identity = %+v", p.Agent)
	}
}

// --twins selects the benign twins for the agent under test's fenced arm (issue 27.8): all of them, or
// the twins of the traps --traps names; the adversary has no bait to try on a twin.
func TestParseRunTwins(t *testing.T) {
	cfg, err := parseRun([]string{"--planner", "diligent", "--twins", "--traps", "decoy-delete"})
	if err != nil || len(cfg.twins) == 0 || cfg.twins[0].TwinOf != "decoy-delete" || cfg.twins[len(cfg.twins)-1].TwinOf != "decoy-delete" {
		t.Fatalf("--twins --traps decoy-delete: %+v, %v", cfg.twins, err)
	}
	all, err := parseRun([]string{"--planner", "diligent", "--twins"})
	if err != nil || len(all.twins) < 5 {
		t.Fatalf("--twins: %d twins, %v", len(all.twins), err)
	}
	if _, err := parseRun([]string{"--twins", "--traps", "decoy-delete"}); err == nil || !strings.Contains(err.Error(), "needs an agent under test") {
		t.Fatalf("--twins with the adversary: %v", err)
	}
}
