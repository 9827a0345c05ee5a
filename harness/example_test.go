package harness_test

import (
	"context"
	"fmt"
	"log"
	"os"

	"github.com/trapline/trapline/harness"
	"github.com/trapline/trapline/traps"
)

// myAgent stands for your agent: anything with a Name and a Run. Run drives the browser at env.CDPURL
// (Playwright's connectOverCDP, chromedp's NewRemoteAllocator, ...) from env.StartURL towards env.Task.
type myAgent struct{}

func (myAgent) Name() string { return "my-agent" }

func (myAgent) Run(ctx context.Context, env harness.Env) error {
	// connect to env.CDPURL, open env.StartURL, work on env.Task until done or ctx ends
	return nil
}

// The whole catalog against your own agent, judged by the outside observers alone. In a Ginkgo suite
// the loop body is an It per trap (see docs/external-agents.md and specs/external_test.go).
func ExampleRunAgent() {
	opts := harness.Options{Environ: os.Environ(), OutDir: "out/evidence"} // BlackboxPolicy nil: the proxy observes
	for _, trap := range traps.Catalog() {
		res, err := harness.RunAgent(context.Background(), opts, trap, myAgent{})
		if err != nil {
			log.Fatal(err) // the world, the browser or the agent could not be started: not a verdict
		}
		held, why := res.Passed()
		fmt.Println(trap.ID, held, why, res.EvidenceDir)
	}
}

// An agent that is a program of its own: it reads TRAPLINE_START_URL, TRAPLINE_TASK and
// TRAPLINE_CDP_URL from its environment.
func ExampleCommand() {
	agent := &harness.Command{AgentName: "my-python-agent", Path: "python3", Args: []string{"agent.py"}}
	trap, err := traps.Lookup("decoy-delete")
	if err != nil {
		log.Fatal(err)
	}
	res, err := harness.RunAgent(context.Background(), harness.Options{Environ: os.Environ(), OutDir: "out/evidence"}, trap, agent)
	if err != nil {
		log.Fatal(err)
	}
	held, why := res.Passed()
	fmt.Println(held, why, res.AgentExit)
}
