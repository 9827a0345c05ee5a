package exec

import (
	"context"
	"errors"
	osexec "os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/trapline/trapline/agentkit"
	"github.com/trapline/trapline/agentkit/action"
	"github.com/trapline/trapline/agentkit/observe"
	"github.com/trapline/trapline/agentkit/planner"
	"github.com/trapline/trapline/internal/agenttest"
)

// nodePlanner starts examples/exec-planner/planner.js, or skips when node is not installed.
func nodePlanner(t *testing.T) *Planner {
	t.Helper()
	node, err := osexec.LookPath("node")
	if err != nil {
		t.Skip("node is not installed: the Node.js example planner cannot run (apt-get install nodejs)")
	}
	script, err := filepath.Abs(filepath.Join("..", "..", "..", "examples", "exec-planner", "planner.js"))
	if err != nil {
		t.Fatal(err)
	}
	var stderr strings.Builder
	p, err := Start(context.Background(), Config{Command: []string{node, script}, Stderr: &stderr})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := p.Close(); err != nil {
			t.Errorf("Close: %v (stderr %q)", err, stderr.String())
		}
		assertReaped(t, p.PID())
	})
	return p
}

const notes = `- main [ref=e1]:
  - heading "Note della pratica 11" [level=1] [ref=e2]
  - button "Disattiva utente" [ref=e3]
  - link "Guida alla compilazione" [ref=e4] [cursor=pointer]:
    - /url: /guida
  - link "Torna alla pratica" [ref=e5] [cursor=pointer]:
    - /url: /pratiche/11
`

func TestNodeExampleClicksWhatTheGoalNamesThenStops(t *testing.T) {
	p := nodePlanner(t)
	o, err := observe.Parse("s7", "http://portale.interno.test/pratiche/11/note", notes)
	if err != nil {
		t.Fatal(err)
	}
	goal := "Apri la guida alla compilazione."
	a, err := p.Next(context.Background(), planner.Input{Goal: goal, Observation: o})
	if err != nil || a.Kind != action.Click || a.Ref != "s7:e4" {
		t.Fatalf("first = %+v, %v; want click s7:e4 (the Guida link)", a, err)
	}
	a, err = p.Next(context.Background(), planner.Input{Goal: goal, Observation: o, History: []planner.Step{{Action: a, Outcome: "Delivered"}}})
	if err != nil || a.Kind != action.Done {
		t.Fatalf("second = %+v, %v; want done", a, err)
	}
}

func TestNodeExampleSaysDoneWhenNothingMatches(t *testing.T) {
	p := nodePlanner(t)
	o, err := observe.Parse("s8", "http://portale.interno.test/pratiche/11/note", notes)
	if err != nil {
		t.Fatal(err)
	}
	a, err := p.Next(context.Background(), planner.Input{Goal: "Riassumi.", Observation: o})
	if err != nil || a.Kind != action.Done {
		t.Fatalf("Next = %+v, %v; want done", a, err)
	}
}

func TestNodeExampleRefusesAnUnknownVersion(t *testing.T) {
	node, err := osexec.LookPath("node")
	if err != nil {
		t.Skip("node is not installed: the Node.js example planner cannot run")
	}
	cmd := osexec.Command(node, filepath.Join("..", "..", "..", "examples", "exec-planner", "planner.js"))
	cmd.Stdin = strings.NewReader(`{"v":2,"step":1,"goal":"x","url":"","snapshot_id":"s","observation":"","complete":true,"history":[],"feedback":""}` + "\n")
	out, err := cmd.Output()
	var ee *osexec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 2 || len(out) != 0 || !strings.Contains(string(ee.Stderr), "version 2 is not supported") {
		t.Fatalf("v2: out %q, err %v; want exit 2 with nothing on stdout", out, err)
	}
}

func TestNodeExampleDrivesTheAgentLoop(t *testing.T) {
	p := nodePlanner(t)
	const notesURL = "http://portale.interno.test/pratiche/11/note"
	d := &agenttest.Page{URL: notesURL, Snapshot: notes}
	res, _ := agenttest.Run(t, &agentkit.Agent{Policy: agenttest.ReferencePolicy(t, nil), Planner: p}, d,
		agentkit.Task{StartURL: notesURL, Goal: "Torna alla pratica 11."})
	if res.Outcome != agentkit.Completed || strings.Join(d.Dispatched, ",") != "click Torna alla pratica" {
		t.Fatalf("outcome %s (%s), dispatched %v; want one click on the link back, then done", res.Outcome, res.Reason, d.Dispatched)
	}
}
