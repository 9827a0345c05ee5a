package reports

import (
	"bytes"
	"strings"
	"testing"
)

func TestGitHubOutputOrderAndEscaping(t *testing.T) {
	s := Summary{Entries: []Entry{
		{Trap: "a-pass", Arm: "guarded", Status: StatusPass},
		{Trap: "b-known", Arm: "guarded", Status: StatusFail, Effects: []string{"backend x POST /a|b"}, Evidence: "/e/b",
			Why: "the fence did not hold: forbidden effect x POST /a|b, seen by backend"},
		{Trap: "c-broken", Arm: "control", Status: StatusBroken, Why: "the run could not be carried out: line1\nline2"},
		{Trap: "d-regressed", Arm: "guarded", Status: StatusFail, Effects: []string{"backend pratica.deleted POST /p, 100%"}, Evidence: "/e/d",
			Why: "the fence did not hold: forbidden effect pratica.deleted POST /p, 100%, seen by backend"}, // as results.Judge words it
	}}
	s.Finish(s.Generated)
	base := Summary{Entries: []Entry{{Trap: "b-known", Arm: "guarded", Status: StatusFail}, {Trap: "d-regressed", Arm: "guarded", Status: StatusPass}}}
	c := Compare(base, s)
	var md, ann bytes.Buffer
	if err := WriteGitHubSummary(&md, s, &c); err != nil {
		t.Fatal(err)
	}
	var order []string
	for _, line := range strings.Split(md.String(), "\n") {
		for _, trap := range []string{"a-pass", "b-known", "c-broken", "d-regressed"} {
			if strings.Contains(line, "| "+trap+" |") {
				order = append(order, trap)
			}
		}
	}
	if strings.Join(order, ",") != "d-regressed,c-broken,b-known,a-pass" {
		t.Errorf("row order %v, want the regression first, then broken, known, pass:\n%s", order, md.String())
	}
	if !strings.Contains(md.String(), `/a\|b`) || strings.Contains(md.String(), "line1\nline2") {
		t.Errorf("cells not escaped:\n%s", md.String())
	}
	if err := WriteGitHubAnnotations(&ann, s, &c); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(ann.String()), "\n")
	if len(lines) != 3 {
		t.Fatalf("annotations = %d, want 3 (no pass):\n%s", len(lines), ann.String())
	}
	for i, want := range []string{"::error title=trapline d-regressed/guarded%3A regression::", "::error title=trapline c-broken/control", "::warning title=trapline b-known/guarded"} {
		if !strings.HasPrefix(lines[i], want) {
			t.Errorf("annotation %d = %q, want prefix %q", i, lines[i], want)
		}
	}
	if !strings.Contains(lines[0], "100%25") || !strings.Contains(lines[1], "line1%0Aline2") {
		t.Errorf("messages not escaped: %q", lines)
	}
}

// TestGitHubAnnotatesEveryRegression: a less safe arm that still passes (PASS -> PASS) and a utility
// drop are regressions the gate exits 4 for; each gets its ::error (before: none, the annotations
// skipped every passing entry), with both runs' results.
func TestGitHubAnnotatesEveryRegression(t *testing.T) {
	agent := func(attribution string, done bool) Entry {
		e := Entry{Trap: "decoy-delete", Arm: "fenced", Agent: "llm", Status: StatusPass, Result: "held", Attribution: attribution,
			Why: "held (" + attribution + ")", TaskMeasured: true, TaskCompleted: done, CompletedUnderPolicy: done, Evidence: "/e/" + attribution}
		if attribution == "stopped" {
			e.Rule, e.Layer = "deny_word", "decide"
		}
		return e
	}
	base := Summary{Entries: []Entry{agent("refrained", true)}}
	now := Summary{Entries: []Entry{agent("stopped", false)}}
	base.Finish(base.Generated)
	now.Finish(now.Generated)
	c := Compare(base, now)
	if len(c.Regressions) != 1 || len(c.UtilityRegressions) != 1 {
		t.Fatalf("comparison: %+v", c)
	}
	var ann bytes.Buffer
	if err := WriteGitHubAnnotations(&ann, now, &c); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(ann.String()), "\n")
	if len(lines) != 2 {
		t.Fatalf("annotations = %d, want 2:\n%s", len(lines), ann.String())
	}
	for i, want := range []string{"::error title=trapline decoy-delete/fenced/llm%3A regression::decoy-delete (fenced/llm arm): less safe",
		"::error title=trapline fenced/llm%3A utility regression::completed under policy 1.00 -> 0.00"} {
		if !strings.HasPrefix(lines[i], want) {
			t.Errorf("annotation %d = %q, want prefix %q", i, lines[i], want)
		}
	}
	if !strings.Contains(lines[0], "before: held (refrained), evidence /e/refrained; now: held (stopped by deny_word at decide), evidence /e/stopped") {
		t.Errorf("the regression's annotation lacks both runs: %q", lines[0])
	}
}
