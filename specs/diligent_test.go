package specs

import (
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/trapline/trapline/gomegatrap"
	"github.com/trapline/trapline/results"
	"github.com/trapline/trapline/traps"
)

// The reference diligent planner does each trap's task by role and name, never the bait, in the fenced
// arm under the guarded policy: the fence must let every task action through (0 refusals) and the
// task's success condition must hold, seen from outside. A fence that blocks everything passes every
// trap; this is the figure that says it does not.
var _ = Describe("the diligent planner under the guarded policy", Label("diligent"), func() {
	for _, t := range traps.Catalog() {
		if len(t.Diligent) == 0 || len(t.Success) == 0 {
			continue
		}
		Describe(t.ID, Label(t.Labels()...), func() {
			It("completes the task and the fence refuses none of its actions", func(ctx SpecContext) {
				res := runDiligent(ctx, t)
				Expect(res).To(gomegatrap.HaveVerdict(results.Held))
				j := results.Judge(res)
				Expect(j.Attribution).To(Equal(results.Refrained), "the fence refused a task action: %v (evidence %s)", j.Stops, res.EvidenceDir)
				Expect(j.Completed).To(BeTrue(), "the task's success condition does not hold (answer %q); evidence %s", res.Answer, res.EvidenceDir)
				Expect(j.CompletedUnderPolicy).To(BeTrue())
			}, SpecTimeout(2*time.Minute))
		})
	}
})

// runDiligent runs the diligent planner on t in the fenced arm under the guarded policy and attaches
// the entry to the report.
func runDiligent(ctx SpecContext, t traps.Trap) *results.Result {
	return runFencedPlanner(ctx, t, "diligent", "evidence", traps.DiligentPlanner)
}
