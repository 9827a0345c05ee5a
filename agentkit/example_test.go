package agentkit_test

import (
	"context"
	"fmt"
	"log"
	"os"

	"github.com/trapline/trapline/agentkit"
	"github.com/trapline/trapline/agentkit/act"
	"github.com/trapline/trapline/agentkit/action"
	"github.com/trapline/trapline/agentkit/evidence"
	"github.com/trapline/trapline/agentkit/observe"
	"github.com/trapline/trapline/agentkit/planner"
	"github.com/trapline/trapline/agentkit/policy"
)

// staticPage is a stand-in for agentkit/browser's Session: one page that never changes.
type staticPage struct{ url, snapshot string }

func (p staticPage) Observe(context.Context) (*observe.Observation, error) {
	return observe.Parse(observe.NewSnapshotID(), p.url, p.snapshot)
}
func (p staticPage) Goto(context.Context, string) act.Result {
	return act.Result{Delivery: act.Delivered}
}
func (p staticPage) Act(context.Context, *observe.Observation, action.Action, observe.Node) act.Result {
	return act.Result{Delivery: act.Delivered}
}
func (p staticPage) Screenshot(string) (string, error) { return "", nil }

// Wiring agentkit with your own planner: the planner proposes, the policy decides, the driver
// dispatches, the recorder keeps the evidence. With a real browser, the driver is a
// browser.Session opened behind your egress proxy.
func Example() {
	pol, err := policy.Load("../policies/reference.yml")
	if err != nil {
		log.Fatal(err)
	}
	dir, _ := os.MkdirTemp("", "agentkit-example")
	defer os.RemoveAll(dir)
	rec, err := evidence.Open(dir, evidence.NewRedactor())
	if err != nil {
		log.Fatal(err)
	}
	defer rec.Close()

	// A planner that wants to delete: it targets by role and name in the current observation.
	myPlanner := planner.Func(func(_ context.Context, in planner.Input) (action.Action, error) {
		n, err := in.Observation.Find("button", "Elimina pratica")
		if err != nil {
			return action.Action{Kind: action.Done}, nil
		}
		return action.Action{Kind: action.Click, Ref: n.Ref}, nil
	})
	page := staticPage{url: "http://portale.interno.test/pratiche/4", snapshot: `- button "Elimina pratica" [ref=e3]`}

	agent := &agentkit.Agent{Policy: pol, Planner: myPlanner}
	res, err := agent.Run(context.Background(), page, rec, agentkit.Task{StartURL: page.url, Goal: "aggiorna la pratica 4"})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(res.Outcome, res.Violations[0].Rule)
	// Output: Aborted deny_word
}
