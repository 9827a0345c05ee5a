package agentkit_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/trapline/trapline/agentkit"
	"github.com/trapline/trapline/agentkit/act"
	"github.com/trapline/trapline/agentkit/action"
	"github.com/trapline/trapline/agentkit/evidence"
	"github.com/trapline/trapline/agentkit/observe"
	"github.com/trapline/trapline/agentkit/planner"
	"github.com/trapline/trapline/agentkit/planner/adversary"
	"github.com/trapline/trapline/agentkit/policy"
	"github.com/trapline/trapline/internal/agenttest"
)

const pageURL = "http://portale.interno.test/pratiche/4"

const detailSnapshot = `- generic [ref=e1]:
  - heading "Pratica 4" [level=1] [ref=e2]
  - button "Elimina pratica" [ref=e3]
  - button "Salva" [ref=e4]
  - link "Guida esterna" [ref=e5] [cursor=pointer]:
    - /url: http://evil.example.test/guida
`

// fakeDriver is the shared one-page driver (agenttest.Page); a click on the element named changeOn
// renames the page's heading, as a save would.
type fakeDriver struct {
	agenttest.Page
	changeOn string // a name whose click changes the page
}

func (d *fakeDriver) Act(ctx context.Context, obs *observe.Observation, a action.Action, n observe.Node) act.Result {
	res := d.Page.Act(ctx, obs, a, n)
	if n.Name == d.changeOn {
		d.Snapshot = strings.Replace(d.Snapshot, "Pratica 4", "Pratica 4 (salvata)", 1)
	}
	return res
}

// clickEveryTurn proposes, every turn, a click on the button named name in the current observation.
func clickEveryTurn(name string) planner.Func {
	return func(_ context.Context, in planner.Input) (action.Action, error) {
		n, err := in.Observation.Find("button", name)
		if err != nil {
			return action.Action{}, err
		}
		return action.Action{Kind: action.Click, Ref: n.Ref}, nil
	}
}

// run runs the agent with pol and pl on d for the detail page's task.
func run(t *testing.T, pol *policy.Policy, pl planner.Planner, d agentkit.Driver) (agentkit.Result, []evidence.Violation) {
	t.Helper()
	return agenttest.Run(t, &agentkit.Agent{Policy: pol, Planner: pl}, d, agentkit.Task{StartURL: pageURL, Goal: "aggiorna lo stato"})
}

func rules(vs []evidence.Violation) []string {
	var out []string
	for _, v := range vs {
		out = append(out, v.Rule.String())
	}
	return out
}

func TestAbortAndLogStopsAtFirstViolation(t *testing.T) {
	d := &fakeDriver{Page: agenttest.Page{Snapshot: detailSnapshot}}
	res, vs := run(t, agenttest.ReferencePolicy(t, nil), adversary.New(), d)
	if res.Outcome != agentkit.Aborted {
		t.Fatalf("outcome = %s (%s), want Aborted", res.Outcome, res.Reason)
	}
	if len(vs) != 1 || vs[0].Rule != policy.RuleDenyWord || vs[0].Taken != "aborted" {
		t.Fatalf("violations = %+v, want one deny_word", vs)
	}
	if len(d.Dispatched) != 0 {
		t.Fatalf("dispatched %v after a denial", d.Dispatched)
	}
}

func TestBlockAndLogGoesOnAndDispatchesOnlyAllowed(t *testing.T) {
	d := &fakeDriver{Page: agenttest.Page{Snapshot: detailSnapshot}, changeOn: "Salva"}
	pol := agenttest.ReferencePolicy(t, func(p *policy.Policy) { p.Navigation.OnViolation = policy.BlockAndLog })
	res, vs := run(t, pol, adversary.New(), d)
	if res.Outcome != agentkit.Completed {
		t.Fatalf("outcome = %s (%s), want Completed", res.Outcome, res.Reason)
	}
	got := strings.Join(rules(vs), ",")
	if got != "deny_word,host_not_allowed" {
		t.Fatalf("violations = %s, want deny_word,host_not_allowed", got)
	}
	if strings.Join(d.Dispatched, ",") != "click Salva" {
		t.Fatalf("dispatched = %v, want only the click on Salva", d.Dispatched)
	}
}

func TestStaleRefIsRejectedNotDispatched(t *testing.T) {
	d := &fakeDriver{Page: agenttest.Page{Snapshot: detailSnapshot}}
	calls := 0
	pl := planner.Func(func(_ context.Context, in planner.Input) (action.Action, error) {
		calls++
		if calls > 1 {
			return action.Action{Kind: action.Done}, nil
		}
		return action.Action{Kind: action.Click, Ref: "zzzzzz:e4"}, nil
	})
	_, vs := run(t, agenttest.ReferencePolicy(t, nil), pl, d)
	if len(vs) != 1 || vs[0].Rule != act.Rule(act.StaleRef) {
		t.Fatalf("violations = %+v, want STALE_REF", vs)
	}
	if len(d.Dispatched) != 0 {
		t.Fatalf("a stale ref was dispatched: %v", d.Dispatched)
	}
}

func TestInvalidProposalsEndInconclusive(t *testing.T) {
	pl := planner.Func(func(context.Context, planner.Input) (action.Action, error) {
		return action.Action{Kind: "drag", Ref: "x:e1"}, nil
	})
	res, vs := run(t, agenttest.ReferencePolicy(t, nil), pl, &fakeDriver{Page: agenttest.Page{Snapshot: detailSnapshot}})
	if res.Outcome != agentkit.Inconclusive || len(vs) != 3 {
		t.Fatalf("outcome = %s with %d violations, want Inconclusive after 3", res.Outcome, len(vs))
	}
}

func TestUnreadablePageIsInconclusiveNotEmpty(t *testing.T) {
	d := &fakeDriver{Page: agenttest.Page{Snapshot: detailSnapshot, ObserveErr: errors.New("snapshot timed out")}}
	res, _ := run(t, agenttest.ReferencePolicy(t, nil), adversary.New(), d)
	if res.Outcome != agentkit.Inconclusive || !strings.Contains(res.Reason, "could not be read") {
		t.Fatalf("outcome = %s (%s), want Inconclusive: unknown is not absent", res.Outcome, res.Reason)
	}
}

func TestUnverifiedDeliveryIsNeverRetriedBlindly(t *testing.T) {
	d := &fakeDriver{Page: agenttest.Page{Snapshot: detailSnapshot, Delivery: act.DeliveredUnverified}}
	pol := agenttest.ReferencePolicy(t, func(p *policy.Policy) { p.Navigation.OnViolation = policy.BlockAndLog })
	res, vs := run(t, pol, clickSalva, d)
	if len(d.Dispatched) != 1 {
		t.Fatalf("dispatched %d times, want exactly 1 (no blind retry)", len(d.Dispatched))
	}
	if len(vs) == 0 || vs[0].Rule != "blind_retry" {
		t.Fatalf("violations = %v, want blind_retry first", rules(vs))
	}
	if res.Outcome != agentkit.Exhausted {
		t.Fatalf("outcome = %s (%s), want Exhausted by the repeat budget", res.Outcome, res.Reason)
	}
}

func TestBudgetActionsExhausts(t *testing.T) {
	d := &fakeDriver{Page: agenttest.Page{Snapshot: detailSnapshot}}
	pl := planner.Func(func(_ context.Context, in planner.Input) (action.Action, error) {
		return action.Action{Kind: action.Goto, URL: pageURL + "?n=" + time.Now().Format("150405.000000000")}, nil
	})
	pol := agenttest.ReferencePolicy(t, func(p *policy.Policy) { p.Budget.MaxActions = 3; p.Budget.MaxNavigations = 100 })
	res, vs := run(t, pol, pl, d)
	if res.Outcome != agentkit.Exhausted || res.Actions != 3 {
		t.Fatalf("outcome = %s after %d actions, want Exhausted after 3", res.Outcome, res.Actions)
	}
	if vs[len(vs)-1].Rule != policy.RuleBudgetActions {
		t.Fatalf("last violation = %s, want budget_actions", vs[len(vs)-1].Rule)
	}
}

func TestPlannerTimeoutIsInconclusive(t *testing.T) {
	pl := planner.Func(func(ctx context.Context, _ planner.Input) (action.Action, error) {
		<-ctx.Done()
		return action.Action{}, ctx.Err()
	})
	pol := agenttest.ReferencePolicy(t, func(p *policy.Policy) { p.Budget.MaxDecisionDuration = 20 * time.Millisecond })
	res, _ := run(t, pol, pl, &fakeDriver{Page: agenttest.Page{Snapshot: detailSnapshot}})
	if res.Outcome != agentkit.Inconclusive || !strings.Contains(res.Reason, "no decision within") {
		t.Fatalf("outcome = %s (%s), want Inconclusive on decision timeout", res.Outcome, res.Reason)
	}
}

func TestCredentialPromptEndsInconclusive(t *testing.T) {
	cases := []struct {
		name, raw string
		secret    int
		want      bool
	}{
		{"labelled password", "- textbox \"Password\" [ref=e1]\n- button \"Accedi\" [ref=e2]", 0, true},
		{"italian", "- textbox \"Parola d'ordine\" [ref=e1]", 0, true},
		{"unlabelled but a password input in the DOM", "- textbox [ref=e1]", 1, true},
		{"ordinary form", "- textbox \"Note\" [ref=e1]\n- textbox \"Pinco Pallino\" [ref=e2]", 0, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			d := &secretDriver{fakeDriver: fakeDriver{Page: agenttest.Page{Snapshot: c.raw}}, secret: c.secret}
			rec := agenttest.Recorder(t)
			pl := planner.Func(func(context.Context, planner.Input) (action.Action, error) {
				return action.Action{Kind: action.Done}, nil
			})
			res, _ := (&agentkit.Agent{Policy: agenttest.ReferencePolicy(t, nil), Planner: pl}).Run(context.Background(), d, rec, agentkit.Task{StartURL: pageURL})
			got := res.Outcome == agentkit.Inconclusive && res.Reason == string(agentkit.RuleCredentialPrompt)
			if got != c.want {
				t.Fatalf("outcome %s (%s), want credential prompt stop = %v", res.Outcome, res.Reason, c.want)
			}
		})
	}
}

// secretDriver is a fakeDriver whose page has password inputs in the DOM.
type secretDriver struct {
	fakeDriver
	secret int
}

func (d *secretDriver) Observe(ctx context.Context) (*observe.Observation, error) {
	o, err := d.fakeDriver.Observe(ctx)
	if o != nil {
		o.SecretFields = d.secret
	}
	return o, err
}

// tokenPlanner spends tokens on every turn, as a model planner reports them.
type tokenPlanner struct{ used int }

func (p *tokenPlanner) Next(ctx context.Context, in planner.Input) (action.Action, error) {
	p.used += 400
	return clickSalva.Next(ctx, in)
}
func (p *tokenPlanner) TokensUsed() int { return p.used }

func TestTokenBudgetIsEnforcedOutsideThePlanner(t *testing.T) {
	d := &fakeDriver{Page: agenttest.Page{Snapshot: detailSnapshot}, changeOn: "Salva"}
	pol := agenttest.ReferencePolicy(t, func(p *policy.Policy) { p.Budget.MaxTokens = 1000; p.Budget.MaxSameActionRepeats = 100 })
	res, vs := run(t, pol, &tokenPlanner{}, d)
	if res.Outcome != agentkit.Exhausted || vs[len(vs)-1].Rule != policy.RuleBudgetTokens {
		t.Fatalf("outcome %s, violations %v; want Exhausted by budget_tokens", res.Outcome, rules(vs))
	}
}

func TestSecretsAreRedactedBeforeThePlanner(t *testing.T) {
	const secret = "tok-XYZ-123"
	d := &fakeDriver{Page: agenttest.Page{Snapshot: "- paragraph [ref=e1]: your key is " + secret + "\n- button \"Salva\" [ref=e2]"}}
	var seen string
	pl := planner.Func(func(_ context.Context, in planner.Input) (action.Action, error) {
		seen = in.Observation.Raw + strings.Join(in.Observation.TextLines(), " ")
		return action.Action{Kind: action.Done}, nil
	})
	agenttest.Run(t, &agentkit.Agent{Policy: agenttest.ReferencePolicy(t, nil), Planner: pl, Secrets: []string{secret}}, d, agentkit.Task{StartURL: pageURL})
	if strings.Contains(seen, secret) || !strings.Contains(seen, evidence.Redacted) {
		t.Fatalf("the planner saw %q", seen)
	}
}

// TestDoneNeedsThePostcondition: the planner's "done" is Completed only when the postcondition holds;
// its answer and the postcondition's state come back as fields (Result.Done), never to be cut out of
// the reason sentence.
func TestDoneNeedsThePostcondition(t *testing.T) {
	done := planner.Func(func(context.Context, planner.Input) (action.Action, error) {
		return action.Action{Kind: action.Done, Reason: "saved: pratica 4"}, nil
	})
	for _, c := range []struct {
		name  string
		post  func(*observe.Observation) error
		want  agentkit.Outcome
		state agentkit.Postcondition
	}{
		{"none", nil, agentkit.Completed, agentkit.PostconditionNone},
		{"holds", func(o *observe.Observation) error {
			_, err := o.Find("heading", "Pratica 4")
			return err
		}, agentkit.Completed, agentkit.PostconditionHeld},
		{"fails", func(o *observe.Observation) error {
			_, err := o.Find("heading", "Pratica 4 (salvata)")
			return err
		}, agentkit.Inconclusive, agentkit.PostconditionUnmet},
	} {
		t.Run(c.name, func(t *testing.T) {
			res, _ := agenttest.Run(t, &agentkit.Agent{Policy: agenttest.ReferencePolicy(t, nil), Planner: done},
				&fakeDriver{Page: agenttest.Page{Snapshot: detailSnapshot}}, agentkit.Task{StartURL: pageURL, Postcondition: c.post})
			if res.Outcome != c.want {
				t.Fatalf("outcome %s (%s); want %s", res.Outcome, res.Reason, c.want)
			}
			if res.Done == nil || res.Done.Answer != "saved: pratica 4" || res.Done.Postcondition != c.state {
				t.Fatalf("Done = %+v; want answer %q, postcondition %q", res.Done, "saved: pratica 4", c.state)
			}
			if (c.state == agentkit.PostconditionUnmet) != (res.Done.Why != "") {
				t.Fatalf("Done.Why = %q for postcondition %q", res.Done.Why, c.state)
			}
		})
	}
}

// verifyingDriver returns, like the Playwright driver, the snapshot that verified each action.
type verifyingDriver struct {
	fakeDriver
	observed int
}

func (d *verifyingDriver) Observe(ctx context.Context) (*observe.Observation, error) {
	d.observed++
	return d.fakeDriver.Observe(ctx)
}

func (d *verifyingDriver) Act(ctx context.Context, obs *observe.Observation, a action.Action, n observe.Node) act.Result {
	res := d.fakeDriver.Act(ctx, obs, a, n)
	after, err := d.fakeDriver.Observe(ctx)
	if err != nil {
		panic(err)
	}
	res.After = after
	return res
}

func TestLoopReusesTheVerifyingSnapshot(t *testing.T) {
	d := &verifyingDriver{fakeDriver: fakeDriver{Page: agenttest.Page{Snapshot: detailSnapshot}, changeOn: "Salva"}}
	var seen []*observe.Observation
	pl := planner.Func(func(ctx context.Context, in planner.Input) (action.Action, error) {
		seen = append(seen, in.Observation)
		if len(seen) == 1 {
			return clickSalva.Next(ctx, in)
		}
		return action.Action{Kind: action.Done, Reason: "saved"}, nil
	})
	res, _ := agenttest.Run(t, &agentkit.Agent{Policy: agenttest.ReferencePolicy(t, nil), Planner: pl}, d, agentkit.Task{StartURL: pageURL})
	if res.Outcome != agentkit.Completed {
		t.Fatalf("run = %+v; want Completed", res)
	}
	if d.observed != 1 {
		t.Errorf("the loop read the page %d times; want 1 (the first turn), the second turn reuses the verifying snapshot", d.observed)
	}
	if len(seen) != 2 || !strings.Contains(strings.Join(seen[1].TextLines(), "\n"), "salvata") {
		t.Errorf("the second turn did not see the page after the click: %v", seen)
	}
}

func TestRejectedProposalIsLoggedAndFedBack(t *testing.T) {
	d := &fakeDriver{Page: agenttest.Page{Snapshot: detailSnapshot}, changeOn: "Salva"}
	var feedback []string
	calls := 0
	pl := planner.Func(func(_ context.Context, in planner.Input) (action.Action, error) {
		calls++
		feedback = append(feedback, in.Feedback)
		if calls == 1 {
			return action.Action{}, &planner.RejectedError{Reason: "not JSON", Output: "I think I should click"}
		}
		return action.Action{Kind: action.Done, Reason: "ok"}, nil
	})
	res, vs, log := agenttest.RunLogged(t, &agentkit.Agent{Policy: agenttest.ReferencePolicy(t, nil), Planner: pl}, d, agentkit.Task{StartURL: pageURL})
	if res.Outcome != agentkit.Completed {
		t.Fatalf("outcome = %s (%s), want Completed: a rejected proposal is not fatal", res.Outcome, res.Reason)
	}
	if len(vs) != 1 || vs[0].Rule != "invalid_proposal" || vs[0].Source != policy.LayerPlanner || vs[0].Action != nil {
		t.Fatalf("violations = %+v, want one invalid_proposal from the planner", vs)
	}
	if len(feedback) != 2 || feedback[1] != "rejected: not JSON" {
		t.Fatalf("feedback = %q, want the rejection fed back on the second turn", feedback)
	}
	if !strings.Contains(log, `"rule":"invalid_proposal"`) || !strings.Contains(log, "I think I should click") {
		t.Fatalf("actions.jsonl does not record the rejected output:\n%s", log)
	}
}

func TestRejectedProposalsInARowEndInconclusive(t *testing.T) {
	pl := planner.Func(func(context.Context, planner.Input) (action.Action, error) {
		return action.Action{}, fmt.Errorf("model: %w", &planner.RejectedError{Reason: "empty answer"})
	})
	res, vs := run(t, agenttest.ReferencePolicy(t, nil), pl, &fakeDriver{Page: agenttest.Page{Snapshot: detailSnapshot}})
	if res.Outcome != agentkit.Inconclusive || len(vs) != 3 || !strings.Contains(res.Reason, "3 invalid proposals") {
		t.Fatalf("outcome = %s (%s) with %d violations, want Inconclusive after 3", res.Outcome, res.Reason, len(vs))
	}
}

func TestOtherPlannerErrorsEndTheRun(t *testing.T) {
	pl := planner.Func(func(context.Context, planner.Input) (action.Action, error) {
		return action.Action{}, planner.ErrGaveUp
	})
	res, vs := run(t, agenttest.ReferencePolicy(t, nil), pl, &fakeDriver{Page: agenttest.Page{Snapshot: detailSnapshot}})
	if res.Outcome != agentkit.Inconclusive || len(vs) != 0 || !strings.Contains(res.Reason, "gave up") {
		t.Fatalf("outcome = %s (%s), %d violations; want Inconclusive, planner gave up", res.Outcome, res.Reason, len(vs))
	}
}

// TestOneRuleForABadRefWhateverItsShape: the loop is the one place refs are resolved, so a bad ref
// leaves the same rule in the evidence whichever planner proposed it and whatever its shape.
func TestOneRuleForABadRefWhateverItsShape(t *testing.T) {
	for _, c := range []struct {
		ref  func(*observe.Observation) string
		want policy.Rule
	}{
		{func(o *observe.Observation) string { return o.SnapshotID + ":e99" }, policy.RuleUnknownRef},
		{func(*observe.Observation) string { return "e4" }, policy.RuleUnknownRef},
		{func(*observe.Observation) string { return "no colon at all!" }, policy.RuleUnknownRef},
		{func(*observe.Observation) string { return "zzzzzz:e4" }, policy.RuleStaleRef},
	} {
		d := &fakeDriver{Page: agenttest.Page{Snapshot: detailSnapshot}}
		calls, ref := 0, ""
		pl := planner.Func(func(_ context.Context, in planner.Input) (action.Action, error) {
			if calls++; calls > 1 {
				return action.Action{Kind: action.Done}, nil
			}
			ref = c.ref(in.Observation)
			return action.Action{Kind: action.Click, Ref: ref}, nil
		})
		_, vs := run(t, agenttest.ReferencePolicy(t, nil), pl, d)
		if len(vs) != 1 || vs[0].Rule != c.want || vs[0].Source != policy.LayerResolve {
			t.Errorf("ref %q: violations = %+v, want one %s from resolve", ref, vs, c.want)
		}
		if len(d.Dispatched) != 0 {
			t.Errorf("ref %q was dispatched: %v", ref, d.Dispatched)
		}
	}
}

// TestRunNamesWhatIsMissing: a Run that cannot start says which field is nil.
func TestRunNamesWhatIsMissing(t *testing.T) {
	rec := agenttest.Recorder(t)
	ag := &agentkit.Agent{Policy: agenttest.ReferencePolicy(t, nil)}
	_, err := ag.Run(context.Background(), &fakeDriver{Page: agenttest.Page{Snapshot: detailSnapshot}}, rec, agentkit.Task{StartURL: pageURL})
	if err == nil || err.Error() != "agentkit: Run: missing (nil) Agent.Planner" {
		t.Fatalf("err = %v, want the planner named", err)
	}
	_, err = (&agentkit.Agent{}).Run(context.Background(), nil, nil, agentkit.Task{})
	if err == nil || err.Error() != "agentkit: Run: missing (nil) Agent.Policy, Agent.Planner, the driver, the recorder" {
		t.Fatalf("err = %v, want every missing field named", err)
	}
}

// TestForeignRefsForeverEndAfterThree: a planner that keeps proposing a well-formed click on a ref of
// another snapshot is rejected (STALE_REF) three times in a row and the run ends, as
// docs/exec-protocol.md says; before, each well-formed proposal reset the count and the run went on to
// the time budget (issue 27.2). The end is a planner failure: the agent could not act.
func TestForeignRefsForeverEndAfterThree(t *testing.T) {
	d := &fakeDriver{Page: agenttest.Page{Snapshot: detailSnapshot}}
	calls := 0
	pl := planner.Func(func(context.Context, planner.Input) (action.Action, error) {
		calls++
		if calls > 10 {
			return action.Action{Kind: action.Done}, nil
		}
		return action.Action{Kind: action.Click, Ref: "zzzzzz:e4"}, nil
	})
	res, vs := run(t, agenttest.ReferencePolicy(t, nil), pl, d)
	if res.Outcome != agentkit.Inconclusive || len(vs) != 3 || calls != 3 || !strings.Contains(res.Reason, "3 unusable proposals in a row") {
		t.Fatalf("outcome = %s (%s), %d violations after %d proposals; want Inconclusive after 3", res.Outcome, res.Reason, len(vs), calls)
	}
	if res.PlannerFailure != res.Reason {
		t.Fatalf("PlannerFailure = %q, want the reason %q", res.PlannerFailure, res.Reason)
	}
}

// TestPlannerFailureIsRecorded: a planner error (an endpoint that answers 500, a process that is gone)
// ends the run with Result.PlannerFailure set; a run the planner finished has none.
func TestPlannerFailureIsRecorded(t *testing.T) {
	broken := planner.Func(func(context.Context, planner.Input) (action.Action, error) {
		return action.Action{}, errors.New("llm: HTTP 500 from the endpoint")
	})
	res, _ := run(t, agenttest.ReferencePolicy(t, nil), broken, &fakeDriver{Page: agenttest.Page{Snapshot: detailSnapshot}})
	if res.PlannerFailure != "planner: llm: HTTP 500 from the endpoint" {
		t.Fatalf("PlannerFailure = %q, want the planner's error", res.PlannerFailure)
	}
	done := planner.Func(func(context.Context, planner.Input) (action.Action, error) {
		return action.Action{Kind: action.Done}, nil
	})
	if res, _ := run(t, agenttest.ReferencePolicy(t, nil), done, &fakeDriver{Page: agenttest.Page{Snapshot: detailSnapshot}}); res.PlannerFailure != "" {
		t.Fatalf("a finished run: PlannerFailure = %q", res.PlannerFailure)
	}
}

// goneDriver is the one-page driver whose first goneFor dispatches find their target re-rendered away
// (act.TargetGone), as after an htmx-style swap.
type goneDriver struct {
	agenttest.Page
	goneFor int
	acts    int
}

func (d *goneDriver) Act(ctx context.Context, obs *observe.Observation, a action.Action, n observe.Node) act.Result {
	d.acts++
	if d.acts <= d.goneFor {
		return act.Failed(act.TargetGone, "%s is gone from the page", a.Ref)
	}
	return d.Page.Act(ctx, obs, a, n)
}

// TestAGoneTargetIsDeliveryTroubleReadOnce: a target re-rendered away is the agent's delivery trouble
// (Result.DeliveryTrouble, no violation), the page is read again and the same target may be proposed
// once more and delivered (issue 32.2).
func TestAGoneTargetIsDeliveryTroubleReadOnce(t *testing.T) {
	d := &goneDriver{Page: agenttest.Page{Snapshot: detailSnapshot}, goneFor: 1}
	var seen []string
	pl := planner.Func(func(_ context.Context, in planner.Input) (action.Action, error) {
		if len(in.History) > 0 {
			seen = append(seen, in.History[len(in.History)-1].Outcome)
		}
		if len(in.History) == 2 {
			return action.Action{Kind: action.Done}, nil
		}
		n, err := in.Observation.Find("button", "Salva")
		if err != nil {
			return action.Action{}, err
		}
		return action.Action{Kind: action.Click, Ref: n.Ref}, nil
	})
	res, vs := run(t, agenttest.ReferencePolicy(t, nil), pl, d)
	if len(vs) != 0 {
		t.Fatalf("violations %v, want none: a re-rendered target is no guard", rules(vs))
	}
	if len(res.DeliveryTrouble) != 1 || res.DeliveryTrouble[0].Rule != policy.RuleTargetGone {
		t.Fatalf("delivery trouble %+v, want one target_gone", res.DeliveryTrouble)
	}
	if len(seen) != 2 || !strings.HasPrefix(seen[0], planner.Reobserved) || len(d.Dispatched) != 1 {
		t.Fatalf("outcomes %q, dispatched %v: want the trouble told (planner.Reobserved), then one delivery", seen, d.Dispatched)
	}
}

// TestAGoneTargetTwiceInARowIsStaleRef: the same target gone again right after the re-read is never
// retried blindly: it is the stale-ref guard.
func TestAGoneTargetTwiceInARowIsStaleRef(t *testing.T) {
	d := &goneDriver{Page: agenttest.Page{Snapshot: detailSnapshot}, goneFor: 2}
	turns := 0
	pl := planner.Func(func(_ context.Context, in planner.Input) (action.Action, error) {
		if turns++; turns > 2 {
			return action.Action{Kind: action.Done}, nil
		}
		n, err := in.Observation.Find("button", "Salva")
		if err != nil {
			return action.Action{}, err
		}
		return action.Action{Kind: action.Click, Ref: n.Ref}, nil
	})
	res, vs := run(t, agenttest.ReferencePolicy(t, nil), pl, d)
	if got := rules(vs); len(got) != 1 || got[0] != string(policy.RuleStaleRef) {
		t.Fatalf("violations %v, want one STALE_REF", got)
	}
	if len(res.DeliveryTrouble) != 1 {
		t.Fatalf("delivery trouble %+v, want the first one only", res.DeliveryTrouble)
	}
}

// TestAHoverIsDecidedWithoutTheNameRules: hovering "Elimina pratica" is dispatched; clicking it is not.
func TestAHoverIsDecidedWithoutTheNameRules(t *testing.T) {
	d := &fakeDriver{Page: agenttest.Page{Snapshot: detailSnapshot}}
	turns := 0
	pl := planner.Func(func(_ context.Context, in planner.Input) (action.Action, error) {
		turns++
		n, err := in.Observation.Find("button", "Elimina pratica")
		if err != nil {
			return action.Action{}, err
		}
		switch turns {
		case 1:
			return action.Action{Kind: action.Hover, Ref: n.Ref}, nil
		case 2:
			return action.Action{Kind: action.Click, Ref: n.Ref}, nil
		}
		return action.Action{Kind: action.Done}, nil
	})
	_, vs := run(t, agenttest.ReferencePolicy(t, nil), pl, d)
	if got := rules(vs); len(got) != 1 || got[0] != string(policy.RuleDenyWord) {
		t.Fatalf("violations %v, want the click's deny_word only", got)
	}
	if len(d.Dispatched) != 1 || d.Dispatched[0] != "hover Elimina pratica" {
		t.Fatalf("dispatched %v, want the hover only", d.Dispatched)
	}
}

// shotDriver is fakeDriver with a screen: each Screenshot is a new file name.
type shotDriver struct {
	fakeDriver
	shots []string
}

func (d *shotDriver) Screenshot(name string) (string, error) {
	d.shots = append(d.shots, name)
	return "/evidence/" + name, nil
}

// TestOneScreenshotPerUnchangedPage: two denials on a page unchanged between them share one
// screenshot (the same URL and snapshot, nothing dispatched in between); a denial after a dispatch
// that changed the page gets its own.
func TestOneScreenshotPerUnchangedPage(t *testing.T) {
	d := &shotDriver{fakeDriver: fakeDriver{Page: agenttest.Page{Snapshot: detailSnapshot}, changeOn: "Salva"}}
	pol := agenttest.ReferencePolicy(t, func(p *policy.Policy) { p.Navigation.OnViolation = policy.BlockAndLog })
	steps := []struct{ role, name string }{{"button", "Elimina pratica"}, {"link", "Guida esterna"}, {"button", "Salva"}, {"button", "Elimina pratica"}}
	turn := 0
	pl := planner.Func(func(_ context.Context, in planner.Input) (action.Action, error) {
		if turn == len(steps) {
			return action.Action{Kind: action.Done}, nil
		}
		s := steps[turn]
		turn++
		n, err := in.Observation.Find(s.role, s.name)
		if err != nil {
			return action.Action{}, err
		}
		return action.Action{Kind: action.Click, Ref: n.Ref}, nil
	})
	_, vs := run(t, pol, pl, d)
	if len(vs) != 3 {
		t.Fatalf("violations = %v; want 3 (two before the save, one after)", rules(vs))
	}
	if len(d.shots) != 2 {
		t.Fatalf("screenshots = %v; want 2: one for the unchanged page's two denials, one after the save", d.shots)
	}
	if vs[0].Screenshot == "" || vs[1].Screenshot != vs[0].Screenshot || vs[2].Screenshot == vs[0].Screenshot || vs[2].Screenshot == "" {
		t.Fatalf("screenshots of the violations = %q, %q, %q; want the first two the same, the third its own",
			vs[0].Screenshot, vs[1].Screenshot, vs[2].Screenshot)
	}
}
