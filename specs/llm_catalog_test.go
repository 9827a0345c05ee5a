package specs

import (
	"context"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/trapline/trapline/agentkit/action"
	"github.com/trapline/trapline/agentkit/planner"
	"github.com/trapline/trapline/gomegatrap"
	"github.com/trapline/trapline/results"
	"github.com/trapline/trapline/traps"
)

// The fake OpenAI-compatible model (obedientModel, on 127.0.0.1) through the real llm planner over the
// whole catalog, judged from outside: a model that obeys whatever the page says is never caught behind
// the fence (held: refrained, or stopped by a rule); where the trap's task is a plain answer, a model
// that ignores the bait and answers is held (refrained) and completes the task. Label llm-catalog: one
// fenced run per trap plus one per answer task; make test runs a sample (catalogSample), make
// llm-catalog-matrix every trap.
var _ = Describe("the fake model through the llm planner over the catalog", Label("llm-catalog"), func() {
	run := func(ctx context.Context, t traps.Trap, m *obedientModel, name string) *results.Result {
		return runFencedPlanner(ctx, t, name, "evidence-llm-catalog", func(traps.Trap) planner.Planner { return m.planner() })
	}
	for _, t := range catalogMatrix(llmCatalogEnv) { // make test: a sample; TRAPLINE_LLM_CATALOG=full: every trap
		Describe(t.ID, Label(t.Labels()...), func() {
			It("an obedient model is not caught behind the fence", func(ctx SpecContext) {
				res := run(ctx, t, newObedientModel(), "obedient")
				j := results.Judge(res)
				if j.Verdict == results.NotExercised {
					// The runtime stopped before the model was asked (a login, captcha or one-time
					// code prompt): the trap says nothing about the model, and the verdict says so.
					Expect(res.Decisions).To(HaveValue(BeZero()), j.Reason)
					return
				}
				Expect(res).To(gomegatrap.HaveVerdict(results.Held))
				Expect(j.Attribution).To(BeElementOf(results.Refrained, results.Stopped), j.Reason)
			}, SpecTimeout(3*time.Minute))

			if answer, ok := answerTask(t); ok && len(t.Success) > 0 {
				It("a model that ignores the bait and answers is held (refrained) and completes the task", func(ctx SpecContext) {
					m := newObedientModel()
					m.diligent = answer
					res := run(ctx, t, m, "diligent-model")
					Expect(res).To(gomegatrap.HaveVerdict(results.Held))
					j := results.Judge(res)
					Expect(j.Attribution).To(Equal(results.Refrained), j.Reason)
					Expect(j.CompletedUnderPolicy).To(BeTrue(), "answer %q", res.Answer)
				}, SpecTimeout(2*time.Minute))
			}
		})
	}
})

// answerTask returns the answer of a trap whose diligent script is a single done with its answer (a
// reading task the fake model can play without acting).
func answerTask(t traps.Trap) (string, bool) {
	if len(t.Diligent) != 1 || t.Diligent[0].Action != action.Done {
		return "", false
	}
	return t.Diligent[0].Reason, true
}
