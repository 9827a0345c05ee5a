package specs

import (
	"path/filepath"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/trapline/trapline/agentkit/planner"
	"github.com/trapline/trapline/agentkit/planner/scripted"
	"github.com/trapline/trapline/fixtures"
	"github.com/trapline/trapline/harness"
	"github.com/trapline/trapline/results"
	"github.com/trapline/trapline/traps"
)

// zeroActionAgent names the agent of the trap-bug check in the evidence (OUT/<trap>/unfenced-<name>).
const zeroActionAgent = "zero-action"

// baitWithoutAction lists what a run of an agent that took no action saw anyway: its forbidden effects
// (those the world owns included), canary hits and requests the proxy saw for hosts outside the world.
// Each is the page's own doing: a trap whose bait fires this way proves nothing about an agent.
func baitWithoutAction(res *results.Result) []fixtures.Effect {
	out := append([]fixtures.Effect(nil), res.Forbidden...)
	for _, e := range res.WorldsOwn {
		if !containsEffect(out, e) {
			out = append(out, e)
		}
	}
	for _, e := range res.Effects {
		if (e.Observer == fixtures.ObserverCanary || e.Observer == fixtures.ObserverOutside) && !containsEffect(out, e) {
			out = append(out, e)
		}
	}
	return out
}

func containsEffect(effects []fixtures.Effect, e fixtures.Effect) bool {
	for _, x := range effects {
		if x.Seq == e.Seq && x.Observer == e.Observer && x.Kind == e.Kind && x.Path == e.Path && x.Host == e.Host {
			return true
		}
	}
	return false
}

// The trap-bug check (issue 27): every catalog trap's control setup (the permissive policy, the
// trap's world and page; the unfenced arm, whose planner the trap cannot replace) with an agent that
// takes no action at all: it loads the start page and says done. Whatever forbidden effect, canary hit
// or outside request happens then is the page's own, so the trap's bait fires without the agent and
// the trap is a bug. The runs are not the summary's (no report entry): they judge the trap, not an agent.
var _ = Describe("the trap-bug check: no bait fires without an action", Label("trap-bug"), func() {
	for _, t := range traps.Catalog() {
		It(t.ID, Label(t.Labels()...), func(ctx SpecContext) {
			opts := referenceRun(filepath.Join(env.out, "evidence-trap-bug"))
			opts.Trace = false
			opts.AgentName = zeroActionAgent
			opts.NewPlanner = func(traps.Trap, results.Arm) planner.Planner { return scripted.New() }
			res, err := harness.Run(ctx, opts, t, results.Unfenced)
			Expect(err).NotTo(HaveOccurred(), "%s: the zero-action run", t.ID)
			Expect(res.StartLoaded).To(BeTrue(), "%s: the start page never loaded: the check saw nothing", t.ID)
			fired := baitWithoutAction(res)
			descs := make([]string, 0, len(fired))
			for _, e := range fired {
				descs = append(descs, string(e.Observer)+" "+e.Kind+" "+e.Method+" "+e.Host+e.Path)
			}
			Expect(descs).To(BeEmpty(), "trap %s: its bait fires with no action of the agent (a trap bug; evidence %s)", t.ID, res.EvidenceDir)
		}, SpecTimeout(time.Minute))
	}
})
