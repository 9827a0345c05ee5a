package specs

import (
	"net/http/httptest"
	"path/filepath"
	"strconv"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/trapline/trapline/agentkit/evidence"
	"github.com/trapline/trapline/agentkit/planner"
	"github.com/trapline/trapline/agentkit/planner/llm"
	"github.com/trapline/trapline/harness"
	"github.com/trapline/trapline/internal/fakemodel"
	"github.com/trapline/trapline/reports"
	"github.com/trapline/trapline/results"
	"github.com/trapline/trapline/traps"
)

// The honest gate (issue 27), through the real llm planner against the project's fake model
// (internal/fakemodel) on a handful of traps, on the runner trapline run uses: a model that cannot
// answer is broken, never held; a lazy agent is never caught or stopped (what the page does by itself
// is the world's); a frugal agent passes token-burn; the obedient model is stopped exactly where it
// attempted what fires the trap, and refrained elsewhere; repeated trials are each kept.
var _ = Describe("the gate against a fake model", Label("gate"), func() {
	var model *fakemodel.Server
	BeforeEach(func() {
		model = fakemodel.Start(nil)
		DeferCleanup(model.Close)
	})
	// runnerFor runs the adversary's proof arms and the llm planner on baseURL's model name under test,
	// as the agent fake-<name> (the llm catalog's own fake model has agents of the characters' names).
	// Only the agent's arms are reported: the proof arms repeat the catalog's, and summary.json keeps
	// one entry per trap, arm and agent.
	runnerFor := func(baseURL, name string, trials int) *harness.ArmRunner {
		proof := referenceRun(filepath.Join(env.out, "evidence-gate"))
		underTest := proof
		underTest.AgentName = "fake-" + name
		underTest.NewPlanner = func(traps.Trap, results.Arm) planner.Planner {
			p, err := llm.New(llm.Config{BaseURL: baseURL, Model: name})
			Expect(err).NotTo(HaveOccurred())
			return p
		}
		r := suiteRunner(proof, underTest, nil)
		r.Trials = trials
		start, done := r.Start, r.Done
		r.Start = func(run harness.ArmRun) {
			if run.Arm.UnderTest() {
				start(run)
			}
		}
		r.Done = func(run harness.ArmRun) {
			if run.Arm.UnderTest() {
				done(run)
				return
			}
			Expect(run.Err).NotTo(HaveOccurred(), "%s/%s: the proof arm", run.Trap.ID, run.Arm)
		}
		return r
	}
	lookup := func(id string) traps.Trap {
		t, err := traps.Lookup(id)
		Expect(err).NotTo(HaveOccurred())
		return t
	}

	It("a dead endpoint (HTTP 500, a refused connection) is broken, never held", func(ctx SpecContext) {
		closed := httptest.NewServer(nil)
		closed.Close()
		for _, c := range []struct{ url, name string }{{model.URL(), fakemodel.Broken}, {closed.URL + "/v1", "any-model"}} {
			// A runner of its own: the suite's fails the spec on a run that broke, which is the claim here.
			r := runnerFor(c.url, c.name, 1)
			r.Start, r.Done = nil, nil
			runs, err := r.Run(ctx, lookup("decoy-delete"), results.Fenced)
			Expect(err).NotTo(HaveOccurred())
			Expect(runs).To(HaveLen(1))
			Expect(runs[0].Entry.Status).To(Equal(reports.StatusBroken), "%s at %s: %s", c.name, c.url, runs[0].Entry.Why)
			Expect(runs[0].Entry.Why).To(ContainSubstring("could not act"))
			if res := runs[0].Result; res != nil {
				Expect(results.Judge(res).Verdict).To(Equal(results.Broken))
			}
		}
	}, SpecTimeout(3*time.Minute))

	It("a model that was never asked is not exercised, never held (issue 51.1)", func(ctx SpecContext) {
		// The runtime stops at the login, captcha or code prompt before its planner's first call: a
		// dead endpoint gets no request there, and the arm says the trap tested nothing.
		r := runnerFor(model.URL(), fakemodel.Broken, 1)
		r.Start, r.Done = nil, nil
		for _, id := range []string{"fake-login", "captcha-wall"} {
			runs, err := r.Run(ctx, lookup(id), results.Fenced)
			Expect(err).NotTo(HaveOccurred())
			Expect(runs).To(HaveLen(1))
			res, e := runs[0].Result, runs[0].Entry
			Expect(res).NotTo(BeNil(), "%s: %s", id, e.Why)
			Expect(res.Decisions).To(HaveValue(BeZero()), "%s: the planner was never asked", id)
			j := results.Judge(res)
			Expect(j.Verdict).To(Equal(results.NotExercised), "%s: %s", id, j.Reason)
			Expect(j.Reason).To(ContainSubstring("decided nothing"))
			Expect(e.Status).To(Equal(reports.StatusFail), "%s: an arm that tested nothing never passes", id)
		}
	}, SpecTimeout(3*time.Minute))

	It("a lazy agent is never caught or stopped: what the page does before its first action is the world's", func(ctx SpecContext) {
		r := runnerFor(model.URL(), fakemodel.Lazy, 1)
		for _, id := range []string{"websocket-exfil", "session-boundary"} {
			for _, arm := range []results.Arm{results.Fenced, results.Unfenced} {
				res := runWith(ctx, r, lookup(id), arm).Result
				j := results.Judge(res)
				Expect(j.Verdict).To(Equal(results.Held), "%s/%s: %s", id, arm, j.Reason)
				Expect(j.Attribution).To(Equal(results.Refrained), "%s/%s: %s", id, arm, j.Reason)
				Expect(j.Completed).To(BeFalse(), "%s/%s: a lazy agent completes no task (answer %q)", id, arm, res.Answer)
			}
		}
	}, SpecTimeout(4*time.Minute))

	It("a frugal agent passes token-burn: the runaway is measured against its own use", func(ctx SpecContext) {
		res := runWith(ctx, runnerFor(model.URL(), fakemodel.Frugal, 1), lookup("token-burn"), results.Fenced).Result
		j := results.Judge(res)
		Expect(j.Verdict).To(Equal(results.Held), j.Reason)
		Expect(res.Tokens).NotTo(BeNil())
		Expect(*res.Tokens).To(BeNumerically("<", env.reference.Budget.MaxTokens/4), "a frugal agent")
		pages := 0
		for _, e := range res.Effects {
			if e.Kind == traps.KindRegisterStep {
				n, _ := strconv.Atoi(e.Detail)
				pages = max(pages, n)
			}
		}
		Expect(pages).To(BeNumerically(">", fakemodel.FrugalPages), "the agent paged past the old guess of 40,000 tokens a page (7 pages)")
	}, SpecTimeout(3*time.Minute))

	It("the obedient model is stopped where it attempted what fires the trap, and refrained elsewhere", func(ctx SpecContext) {
		r := runnerFor(model.URL(), fakemodel.Obedient, 1)
		for _, id := range []string{"hidden-injection", "decoy-delete", "confirm-dialog"} {
			t := lookup(id)
			control := runWith(ctx, r, t, results.Control).Result
			Expect(control.FiredBy).NotTo(BeEmpty(), "%s: the control arm did not fire", id)
			res := runWith(ctx, r, t, results.Fenced).Result
			j := results.Judge(res)
			Expect(j.Verdict).To(Equal(results.Held), "%s: %s", id, j.Reason)
			attempted := attemptedAny(res, control.FiredBy)
			if attempted {
				Expect(j.Attribution).To(Equal(results.Stopped), "%s: the model attempted the bait: %s", id, j.Reason)
			} else {
				Expect(j.Attribution).To(Equal(results.Refrained), "%s: the model never attempted the bait: %s", id, j.Reason)
			}
		}
	}, SpecTimeout(6*time.Minute))

	It("--repeat 3 keeps each trial's verdict", func(ctx SpecContext) {
		entries, err := runnerFor(model.URL(), fakemodel.Lazy, 3).RunTrap(ctx, lookup("decoy-delete"), []results.Arm{results.Fenced})
		Expect(err).NotTo(HaveOccurred())
		Expect(entries).To(HaveLen(1))
		reportEntry(entries[0]) // the suite runner reports a repeated arm's trials merged, once
		Expect(entries[0].Trials).To(HaveLen(3))
		Expect(reports.ResultLabel(entries[0])).To(ContainSubstring("3 of 3 held"))
		for _, tr := range entries[0].Trials {
			Expect(tr.Result).To(Equal(string(results.Held)))
		}
	}, SpecTimeout(3*time.Minute))
})

// attemptedAny says the run's action log has an action the model proposed (whatever the fence decided)
// that is one of the control arm's attempts: the same kind on the same named target.
func attemptedAny(res *results.Result, fired []results.Attempt) bool {
	actions, err := evidence.ReadActions(filepath.Join(res.EvidenceDir, evidence.ActionsFile))
	Expect(err).NotTo(HaveOccurred())
	for _, a := range actions {
		if a.Target == nil {
			continue
		}
		for _, f := range fired {
			if f.Action != "" && f.Action == string(a.Proposal.Kind) && f.Role == a.Target.Role && f.Name == a.Target.Name {
				return true
			}
		}
	}
	return false
}
