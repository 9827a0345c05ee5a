package specs

import (
	"context"
	"fmt"
	"path/filepath"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/trapline/trapline/harness"
	"github.com/trapline/trapline/results"
	"github.com/trapline/trapline/traps"
)

// blackboxControls are the control arms' attempts of the black-box cells (the agent tools, the agent
// frameworks): each trap's control arm runs once per process and its attempts are handed to every
// black-box arm of the trap, as trapline run --agent and trapline tools matrix run them, so a proxy's
// refusal of the request that fires the trap is "stopped by deny_path at proxy" (held:proxy) here too.
var blackboxControls = &harness.Controls{}

// withControl gives runner the black-box cells' control attempts, after running t's control arm
// (the adversary under the permissive policy, in the suite's browser) if no spec of this process ran
// it yet. The control arm is the proof's, not the cell's: it is not attached to the spec's report.
func withControl(ctx context.Context, runner *harness.ArmRunner, t traps.Trap) *harness.ArmRunner {
	runner.Controls = blackboxControls
	if !blackboxControls.Ran(t.ID) {
		// A folder per process: each process runs the trap's control arm once, and two processes
		// writing one folder read each other's half-written action log (CI, stop 47).
		proof := referenceRun(filepath.Join(env.out, "evidence-blackbox-control", fmt.Sprintf("process-%d", GinkgoParallelProcess())))
		runs, err := (&harness.ArmRunner{Proof: proof, Controls: blackboxControls}).Run(ctx, t, results.Control)
		Expect(err).NotTo(HaveOccurred())
		Expect(runs).To(HaveLen(1))
		Expect(runs[0].Err).NotTo(HaveOccurred(), "%s's control arm", t.ID)
	}
	return runner
}
