package reports

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/trapline/trapline/fixtures"
	"github.com/trapline/trapline/results"
)

// An old summary (no agent field) and a new one naming the reference agent compare as the same arms;
// a black-box agent's arm is its own.
func TestCompareKeysOnAgent(t *testing.T) {
	oldSummary := []byte(`{"v":1,"passed":1,"failed":1,"entries":[{"trap":"decoy-delete","arm":"guarded","verdict":"pass"},{"trap":"decoy-delete","arm":"blackbox","agent":"naive","verdict":"fail"}]}`)
	p := mustWrite(t, filepath.Join(t.TempDir(), "old.json"), oldSummary)
	base, err := ReadJSON(p)
	if err != nil {
		t.Fatal(err)
	}
	cur := Summary{Entries: []Entry{
		{Trap: "decoy-delete", Arm: "guarded", Agent: results.ReferenceAgent, Status: StatusFail},
		{Trap: "decoy-delete", Arm: "blackbox", Agent: "naive", Status: StatusFail},
		{Trap: "decoy-delete", Arm: "blackbox", Agent: "careful", Status: StatusPass},
	}}
	c := Compare(base, cur)
	if len(c.Regressions) != 1 || c.Regressions[0].Arm != "guarded" || c.Regressions[0].Agent != "" {
		t.Errorf("regressions = %+v, want the reference agent's guarded arm", c.Regressions)
	}
	if len(c.StillFailing) != 1 || c.StillFailing[0].Agent != "naive" {
		t.Errorf("still failing = %+v, want naive's blackbox arm", c.StillFailing)
	}
	if len(c.New) != 1 || c.New[0].Agent != "careful" || len(c.Removed) != 0 {
		t.Errorf("new = %+v, removed = %+v", c.New, c.Removed)
	}
	var b bytes.Buffer
	if err := c.Write(&b); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "blackbox/naive") {
		t.Errorf("comparison does not name the agent:\n%s", b.String())
	}
	flakes := CheckFlakes([]string{"base", "cur"}, []Summary{base, cur}).Flaky
	if len(flakes) != 1 || flakes[0].Arm != "guarded" {
		t.Errorf("flakes = %+v, want only the reference agent's guarded arm", flakes)
	}
}

func TestBlackboxEntry(t *testing.T) {
	deleted := fixtures.Effect{Observer: fixtures.ObserverBackend, Kind: fixtures.KindDeleted, Method: "POST", Path: "/pratiche/4/elimina"}
	r := &results.Result{Trap: "decoy-delete", Category: "destructive", Arm: results.Blackbox, Agent: "naive", AgentExit: "exit 0",
		StartLoaded: true, Effects: []fixtures.Effect{deleted}, Forbidden: []fixtures.Effect{deleted}, EvidenceDir: "/out/evidence/decoy-delete/blackbox-naive"}
	e := FromResult(r)
	if e.Agent != "naive" || e.Outcome != "exit 0" || e.Status != StatusFail {
		t.Fatalf("entry = %+v", e)
	}
	msg := FailureMessage(e)
	for _, want := range []string{"decoy-delete (blackbox arm, agent naive)", "the agent was caught", "pratica.deleted POST /pratiche/4/elimina, seen by backend", "Evidence: /out/evidence/decoy-delete/blackbox-naive"} {
		if !strings.Contains(msg, want) {
			t.Errorf("failure message %q lacks %q", msg, want)
		}
	}
	props := map[string]string{}
	for _, p := range Properties(e) {
		props[p.Name] = p.Value
	}
	if props[PropAgent] != "naive" || props[PropArm] != "blackbox" {
		t.Errorf("properties = %v", props)
	}
	for _, p := range Properties(Entry{Trap: "x", Arm: "guarded"}) {
		if p.Name == PropAgent && p.Value != "reference" {
			t.Errorf("reference agent property = %q", p.Value)
		}
	}
	s := Summary{Entries: []Entry{e, {Trap: "decoy-delete", Arm: "control", Status: StatusPass}, {Trap: "decoy-delete", Arm: "guarded", Status: StatusPass}}}
	s.Finish(time.Unix(0, 0))
	if s.Entries[0].Arm != "guarded" || s.Entries[1].Arm != "control" || s.Entries[2].Agent != "naive" {
		t.Fatalf("order: %+v", s.Entries)
	}
	var tb bytes.Buffer
	if err := Table(&tb, s); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(tb.String(), "blackbox/naive") {
		t.Errorf("table lacks the agent:\n%s", tb.String())
	}
	// The HTML matrix gets a column for the agent, and its evidence is found below the summary folder.
	dir := t.TempDir()
	ev := results.EvidencePath(filepath.Join(dir, "evidence"), "decoy-delete", results.Blackbox, "naive")
	if err := os.MkdirAll(ev, 0o755); err != nil {
		t.Fatal(err)
	}
	var hb bytes.Buffer
	if err := WriteHTML(&hb, s, HTMLOptions{SummaryDir: dir}); err != nil {
		t.Fatal(err)
	}
	html := hb.String()
	for _, want := range []string{`<th scope="col">blackbox/naive</th>`, `id="arm-decoy-delete-blackbox-naive"`, "black-box run: judged only by the outside observers"} {
		if !strings.Contains(html, want) {
			t.Errorf("HTML lacks %q", want)
		}
	}
}
