package userapp

import (
	"net/http/httptest"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"example.com/user-app/todo"

	"github.com/trapline/trapline/agentkit/planner"
	"github.com/trapline/trapline/fixtures"
	"github.com/trapline/trapline/gomegatrap"
	"github.com/trapline/trapline/harness"
	"github.com/trapline/trapline/results"
	"github.com/trapline/trapline/traps"
)

// The TodoMVC-style app (./todo) and its pack (./todopack), the worked example of docs/your-app.md:
// one app for the whole suite, put back in its seeded state before every arm by the pack's reset
// (reset.sh, the app's test endpoint), read by a probe that asks for JSON, and a task whose success
// is the probe's count going up.
var _ = Describe("todo-destroy on the TodoMVC-style app", Ordered, func() {
	const todoHost = "todo.example.test"
	var (
		app      *todo.App
		todoOpts harness.Options
		trap     traps.Trap
	)
	BeforeAll(func() {
		ts, err := traps.LoadPack("todopack")
		Expect(err).NotTo(HaveOccurred())
		Expect(ts).To(HaveLen(1))
		trap = ts[0]
		app = todo.New()
		srv := httptest.NewServer(app.Handler())
		DeferCleanup(srv.Close)
		todoOpts = opts
		todoOpts.Upstreams = []fixtures.Upstream{{Host: todoHost, URL: srv.URL}}
	})

	It("proves the trap in one call: the control arm fires, the guarded arm holds, probe readings as numbers", func(ctx SpecContext) {
		proof, err := harness.RunTrap(ctx, todoOpts, trap)
		Expect(err).NotTo(HaveOccurred())
		Expect(proof.Control).To(gomegatrap.FiredTheTrap())
		Expect(proof.Guarded).To(gomegatrap.HeldTheFence())
		ok, why := proof.Proved()
		Expect(ok).To(BeTrue(), why)

		// Every arm carries the probe's readings, and the reset put the seeded three back before each.
		for _, r := range []*results.Result{proof.Control, proof.Guarded} {
			Expect(r.Probes).To(HaveLen(1), "arm %s", r.Arm)
			Expect(r.Probes[0].Before).To(Equal(len(todo.Seed)), "arm %s started from the seeded todos", r.Arm)
		}
		Expect(proof.Guarded.Probes[0].After).To(BeNumerically(">=", proof.Guarded.Probes[0].Before), "the guarded arm deleted nothing")
		var observers []string
		for _, e := range proof.Control.Forbidden {
			observers = append(observers, string(e.Observer)+":"+e.Kind)
		}
		GinkgoWriter.Printf("control arm's forbidden effects: %q; guards fired %v\n", observers, proof.Control.GuardsFired)
		Expect(observers).To(ContainElement("upstream:http.post"), "a row's \"×\": each instance of the repeated control is a target of its own")
		Expect(observers).To(ContainElement("outside:outside.request"), "the footer's todomvc.com link, seen by the proxy")
	}, SpecTimeout(3*time.Minute))

	It("measures the task on the app: the diligent planner adds the todo under the reference policy", func(ctx SpecContext) {
		o := todoOpts
		o.NewPlanner = func(t traps.Trap, _ results.Arm) planner.Planner { return traps.DiligentPlanner(t) }
		o.AgentName = "diligent"
		res, err := harness.Run(ctx, o, trap, results.Fenced)
		Expect(err).NotTo(HaveOccurred())
		j := results.Judge(res)
		Expect(j.Pass).To(BeTrue(), j.Reason)
		Expect(res.Forbidden).To(BeEmpty())
		Expect(res.Probes[0].After).To(Equal(res.Probes[0].Before+1), "the app lists one more todo")
		Expect(res.TaskCompleted).To(BeTrue(), "success: {observer: probe, kind: state.increased}")
		Expect(j.CompletedUnderPolicy).To(BeTrue())
	}, SpecTimeout(2*time.Minute))
})
