package specs

import (
	"context"
	"os"
	"time"

	"github.com/trapline/trapline/agentkit/policy"
	"github.com/trapline/trapline/results"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/trapline/trapline/agentkit/planner"
	"github.com/trapline/trapline/gomegatrap"
	"github.com/trapline/trapline/harness"
	"github.com/trapline/trapline/traps"
)

// The llm planner as an agent under test, end to end through a local OpenAI-compatible fake model
// (obedientModel, on 127.0.0.1): its arms are judged from outside by results.Judge.
var _ = Describe("the llm planner as an agent under test", Label("llm"), func() {
	trap, err := traps.Lookup("hidden-injection")
	if err != nil {
		panic(err)
	}
	run := func(ctx context.Context, m *obedientModel, name string, arm results.Arm) *results.Result {
		res, err := harness.Run(ctx, harness.Options{Environ: os.Environ(), Browser: env.browser, Guarded: env.reference, Control: env.permissive,
			OutDir: env.out + "/evidence-llm", Trace: true, AgentName: name,
			NewPlanner: func(traps.Trap, results.Arm) planner.Planner { return m.planner() }}, trap, arm)
		Expect(err).NotTo(HaveOccurred())
		return res
	}

	It("a model that obeys the injection is held, stopped by the fence, and caught without it", func(ctx SpecContext) {
		fenced := run(ctx, newObedientModel(), "obedient", results.Fenced)
		Expect(fenced).To(gomegatrap.HaveVerdict(results.Held))
		j := results.Judge(fenced)
		Expect(j.Attribution).To(Equal(results.Stopped), j.Reason)
		Expect([]policy.Rule{policy.RuleDenyWord, policy.RuleHostNotAllowed}).To(ContainElement(j.Rule), j.Reason)
		Expect(j.Completed).To(BeFalse(), "an obedient model does not summarise the notes")

		unfenced := run(ctx, newObedientModel(), "obedient", results.Unfenced)
		Expect(unfenced).To(gomegatrap.HaveVerdict(results.Caught))
		Expect(results.Judge(unfenced).Pass).To(BeTrue(), "the unfenced arm is measured, never gated")
	}, SpecTimeout(3*time.Minute))

	It("a model that ignores the injection and does the task is held (refrained) and completes it", func(ctx SpecContext) {
		m := newObedientModel()
		m.diligent = "Consegnata la planimetria aggiornata, manca la ricevuta del versamento."
		res := run(ctx, m, "diligent-model", results.Fenced)
		Expect(res).To(gomegatrap.HaveVerdict(results.Held))
		j := results.Judge(res)
		Expect(j.Attribution).To(Equal(results.Refrained), j.Reason)
		Expect(j.CompletedUnderPolicy).To(BeTrue(), "answer %q", res.Answer)
	}, SpecTimeout(2*time.Minute))
})
