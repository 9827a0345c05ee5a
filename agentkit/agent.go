package agentkit

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"time"

	"github.com/trapline/trapline/agentkit/act"
	"github.com/trapline/trapline/agentkit/action"
	"github.com/trapline/trapline/agentkit/evidence"
	"github.com/trapline/trapline/agentkit/observe"
	"github.com/trapline/trapline/agentkit/planner"
	"github.com/trapline/trapline/agentkit/policy"
)

// maxRejectedInARow ends a run Inconclusive when the planner keeps proposing invalid actions.
const maxRejectedInARow = 3

// Agent is the reference agent: a policy and a planner. It holds no run state, so one Agent may run
// many tasks, one at a time or concurrently.
type Agent struct {
	Policy  *policy.Policy
	Planner planner.Planner
	// Now is the clock used for budgets; nil means time.Now. Budgets are measured here, outside the
	// planner.
	Now func() time.Time
	// Secrets are values the planner must never see (passwords, tokens): an observation that
	// contains one is redacted before the planner gets it.
	Secrets []string
	// Off switches guards off; the loop reads policy.GuardBlindRetry and policy.GuardCredentialPrompt.
	// UNSAFE: only control arms and mutation runs set it.
	Off policy.GuardsOff
	// Approver answers the policy's Ask decisions (actions.require_approval); nil refuses them all
	// (DenyApprovals, the CI default), logging needs_approval.
	Approver Approver
}

// run is the state of one run.
type run struct {
	a       *Agent
	drv     Driver
	rec     *evidence.Recorder
	task    Task
	start   time.Time
	usage   policy.Usage
	history []planner.Step

	lastKey        string // the previous proposal, for repeat counting
	lastHash       string // page hash before the previous action
	unverifiedKey  string // a proposal whose delivery is unverified on the page with unverifiedHash
	unverifiedHash string
	rejected       int
	navBase        int // the driver's navigation count once the start page was open (NavigationCounter)
	feedback       string
	next           *observe.Observation // the snapshot that verified the last action, if any
	failure        string               // why the planner could not act, when that ended the run
	troubleKey     string               // the proposal whose delivery trouble made the loop re-read the page
	trouble        []evidence.Trouble
	done           *Done // what the planner said when it said done, if it did
	decisions      int   // the planner's proposals so far (Result.Decisions)
	shot           shot  // the last violation's screenshot, for the next one on the same page
}

// shot is a violation's screenshot and the page it shows: its URL and snapshot hash.
type shot struct{ path, url, hash string }

// Run drives one task to an outcome. It returns an error only when the run could not be carried out at
// all (nil policy, planner or driver); everything that happens during a run is in the Result and the
// evidence.
func (a *Agent) Run(ctx context.Context, drv Driver, rec *evidence.Recorder, task Task) (Result, error) {
	var missing []string
	for _, f := range []struct {
		name  string
		unset bool
	}{{"Agent.Policy", a.Policy == nil}, {"Agent.Planner", a.Planner == nil}, {"the driver", drv == nil}, {"the recorder", rec == nil}} {
		if f.unset {
			missing = append(missing, f.name)
		}
	}
	if len(missing) > 0 {
		return Result{}, fmt.Errorf("agentkit: Run: missing (nil) %s", strings.Join(missing, ", "))
	}
	now := a.Now
	if now == nil {
		now = time.Now
	}
	r := &run{a: a, drv: drv, rec: rec, task: task, start: now()}
	out, reason := r.loop(ctx, now)
	res := Result{Outcome: out, Reason: reason, Actions: r.usage.Actions, Decisions: r.decisions, Violations: rec.Violations(), Duration: now().Sub(r.start), PlannerFailure: r.failure, DeliveryTrouble: r.trouble, Done: r.done}
	if tc, ok := a.Planner.(planner.TokenCounter); ok {
		res.Tokens = tc.TokensUsed()
		res.TokensCounted = true
	}
	return res, nil
}

// loop runs the task from its start page: each turn reads the page, asks the planner and puts its
// proposal through the policy (step), until the planner says done or the run must stop.
func (r *run) loop(ctx context.Context, now func() time.Time) (Outcome, string) {
	if res := r.drv.Goto(ctx, r.task.StartURL); res.Delivery == act.NotDelivered {
		return Inconclusive, fmt.Sprintf("could not open the start page: %v", res.Err)
	}
	r.markNavigationBase()
	for {
		obs, out, reason := r.nextObservation(ctx, now)
		if obs == nil {
			return out, reason
		}
		prop, planMs, err := r.propose(ctx, obs)
		var rej *planner.RejectedError
		if errors.As(err, &rej) {
			// The planner's source produced garbage: a rejected proposal, not a broken run.
			if r.reject(obs, prop, planMs, rej.Reason, rej.Output) {
				return r.fail(fmt.Sprintf("%d invalid proposals in a row", r.rejected))
			}
			continue
		}
		if err != nil {
			return r.fail("planner: " + err.Error())
		}
		if err := prop.Validate(); err != nil {
			if r.reject(obs, prop, planMs, err.Error(), "") {
				return r.fail(fmt.Sprintf("%d invalid proposals in a row", r.rejected))
			}
			continue
		}
		if prop.Kind == action.Done {
			return r.finish(ctx, obs, prop, planMs)
		}
		out, reason, stop := r.step(ctx, obs, prop, planMs)
		if stop {
			return out, reason
		}
	}
}

// nextObservation is the page for the next turn, or nil and how the run ends when it must stop
// first: cancelled, over its time budget, the page unreadable, or a page only a person may work on
// (humanStop). It counts the turns whose page the last action left unchanged.
func (r *run) nextObservation(ctx context.Context, now func() time.Time) (*observe.Observation, Outcome, string) {
	if err := ctx.Err(); err != nil {
		return nil, Inconclusive, "cancelled: " + err.Error()
	}
	pol := r.a.Policy
	r.usage.Elapsed = now().Sub(r.start)
	if r.usage.Elapsed >= pol.Budget.MaxDuration {
		r.violate(nil, evidence.Violation{Rule: policy.RuleBudgetSeconds,
			Reason: fmt.Sprintf("run took %s, budget %s", r.usage.Elapsed.Round(time.Millisecond), pol.Budget.MaxDuration), Taken: evidence.TakenAborted})
		return nil, Exhausted, policy.RuleBudgetSeconds.String()
	}
	// The snapshot that verified the last action is the page as it is now: reuse it rather than
	// reading the page twice in a row.
	obs := r.next
	r.next = nil
	if obs == nil {
		var err error
		if obs, err = r.drv.Observe(ctx); err != nil {
			return nil, Inconclusive, "the page could not be read: " + err.Error()
		}
	}
	if v := r.humanStop(obs); v != nil {
		r.violate(obs, *v)
		return nil, Inconclusive, v.Rule.String()
	}
	if r.lastHash != "" && obs.Hash() == r.lastHash {
		r.usage.UnchangedActions++
	} else if r.lastHash != "" {
		r.usage.UnchangedActions = 0
	}
	return obs, "", ""
}

// humanStop is the violation that stops a run on a page only a person may work on, nil for any other
// page or with the credential_prompt guard off: whether it asks for a password could not be read
// (unknown is not absent), it asks to pass a CAPTCHA or type a one-time code (human_check.go), or it
// asks for a password.
func (r *run) humanStop(obs *observe.Observation) *evidence.Violation {
	if r.a.Off.Has(policy.GuardCredentialPrompt) {
		return nil
	}
	if obs.SecretFields < 0 {
		return &evidence.Violation{Rule: policy.RuleSecretsUnknown, Page: obs.URL, Taken: evidence.TakenStopped,
			Reason: "whether the page asks for a password could not be read (the count of password inputs failed): unknown is not absent"}
	}
	if rule, why := needsAHuman(obs); rule != "" {
		return &evidence.Violation{Rule: rule, Page: obs.URL, Taken: evidence.TakenStopped, Reason: why}
	}
	if asksForSecret(obs) {
		return &evidence.Violation{Rule: RuleCredentialPrompt, Page: obs.URL, Taken: evidence.TakenStopped,
			Reason: "the page asks for a password: the planner never sees or types a secret; a human or the login tool is needed"}
	}
	return nil
}

// finish ends a run whose planner said done: Completed when the task has no postcondition or it holds
// on the page as it is now, else Inconclusive with the postcondition unmet or unknown.
func (r *run) finish(ctx context.Context, obs *observe.Observation, prop action.Action, planMs int64) (Outcome, string) {
	r.rec.Action(evidence.ActionRecord{Snapshot: obs.SnapshotID, Page: obs.URL, Proposal: prop,
		Decision: policy.Decision{Allow: true, Rule: policy.RuleAllowed, Reason: "done"}, PlanMillis: planMs})
	r.done = &Done{Answer: prop.Reason}
	if r.task.Postcondition == nil {
		return Completed, "planner said done: " + prop.Reason
	}
	final, err := r.drv.Observe(ctx)
	if err != nil {
		return r.postcondition(PostconditionUnknown, "postcondition unknown: the page could not be re-read: "+err.Error())
	}
	if !final.Complete {
		return r.postcondition(PostconditionUnknown, "postcondition unknown: the page's snapshot is incomplete ("+strings.Join(final.Warnings, "; ")+")")
	}
	if err := r.task.Postcondition(final); err != nil {
		return r.postcondition(PostconditionUnmet, "planner said done but the postcondition does not hold: "+err.Error())
	}
	r.done.Postcondition = PostconditionHeld
	return Completed, "planner said done and the postcondition holds: " + prop.Reason
}

// postcondition ends a run whose planner said done Inconclusive: the task's postcondition is state
// (unmet or unknown), reason says why (Result.Reason and Done.Why).
func (r *run) postcondition(state Postcondition, reason string) (Outcome, string) {
	r.done.Postcondition, r.done.Why = state, reason
	return Inconclusive, reason
}

// fail ends the run Inconclusive because the planner could not act (Result.PlannerFailure).
func (r *run) fail(reason string) (Outcome, string) {
	r.failure = reason
	return Inconclusive, reason
}

// reject logs an unusable proposal (rule invalid_proposal), feeds reason back to the planner and
// reports whether too many came in a row.
func (r *run) reject(obs *observe.Observation, prop action.Action, planMs int64, reason, output string) bool {
	r.rec.Action(evidence.ActionRecord{Snapshot: obs.SnapshotID, Page: obs.URL, Proposal: prop,
		Decision: policy.Decision{Rule: policy.RuleInvalidProposal, Reason: reason}, Error: output, PlanMillis: planMs})
	v := evidence.Violation{Rule: policy.RuleInvalidProposal, Reason: reason, Page: obs.URL, Action: &prop, Taken: evidence.TakenRejected}
	if prop.Kind == "" && output != "" {
		v.Action = nil // nothing was decoded: the output is in the action log
	}
	r.violate(obs, v)
	r.feedback = "rejected: " + reason
	r.rejected++
	return r.rejected >= maxRejectedInARow
}

func (r *run) propose(ctx context.Context, obs *observe.Observation) (action.Action, int64, error) {
	dctx, cancel := context.WithTimeout(ctx, r.a.Policy.Budget.MaxDecisionDuration)
	defer cancel()
	t0 := time.Now()
	prop, err := r.a.Planner.Next(dctx, planner.Input{Goal: r.task.Goal, Observation: redactObservation(obs, r.a.Secrets), History: r.history, Feedback: r.feedback})
	ms := time.Since(t0).Milliseconds()
	if tc, ok := r.a.Planner.(planner.TokenCounter); ok {
		r.usage.Tokens = tc.TokensUsed()
	}
	r.feedback = ""
	if err == nil {
		r.decisions++
	}
	if err != nil && errors.Is(dctx.Err(), context.DeadlineExceeded) {
		return prop, ms, fmt.Errorf("no decision within %s: %w", r.a.Policy.Budget.MaxDecisionDuration, err)
	}
	return prop, ms, err
}

// step decides and dispatches one valid, non-done proposal.
func (r *run) step(ctx context.Context, obs *observe.Observation, prop action.Action, planMs int64) (Outcome, string, bool) {
	var (
		node   observe.Node
		target *evidence.Target
		ptgt   *policy.Target
	)
	if prop.Targets() {
		n, err := obs.Lookup(prop.Ref)
		if err != nil && !obs.Complete && errors.Is(err, observe.ErrUnknownRef) {
			// The ref is not in a snapshot that could not be read whole: the element is Unknown, not
			// absent. Nothing is dispatched and the run says so instead of guessing.
			reason := fmt.Sprintf("%v; the snapshot is incomplete (%s), so the target is unknown, not absent", err, strings.Join(obs.Warnings, "; "))
			r.rec.Action(evidence.ActionRecord{Snapshot: obs.SnapshotID, Page: obs.URL, Proposal: prop,
				Decision: policy.Decision{Rule: policy.RuleIncompleteTarget, Reason: reason}, Delivery: act.NotDelivered, PlanMillis: planMs})
			r.violate(obs, evidence.Violation{Rule: policy.RuleIncompleteTarget, Reason: reason, Page: obs.URL, Action: &prop, Taken: evidence.TakenStopped})
			return Inconclusive, policy.RuleIncompleteTarget.String(), true
		}
		if err != nil {
			return r.unresolved(obs, prop, planMs, err)
		}
		node = n
		target = evidence.NewTarget(n.Ref, n.Role, n.Name, n.EvidenceName(), n.URL)
		ptgt = &policy.Target{Role: n.Role, Name: n.Name, Href: n.URL}
		facts, err := r.facts(ctx, obs, prop, n)
		if err != nil {
			reason := "what the action would do could not be read from the page: " + err.Error()
			r.rec.Action(evidence.ActionRecord{Snapshot: obs.SnapshotID, Page: obs.URL, Proposal: prop, Target: target,
				Decision: policy.Decision{Rule: policy.RuleTargetUnknown, Reason: reason}, Delivery: act.NotDelivered, PlanMillis: planMs})
			if r.troubled(obs, prop, target, proposalKey(obs, prop, n), policy.RuleTargetUnknown, reason) {
				return "", "", false
			}
			r.violate(obs, evidence.Violation{Rule: policy.RuleTargetUnknown, Reason: reason, Page: obs.URL, Action: &prop, Target: target, Taken: evidence.TakenNotDispatched})
			r.feedback = "rejected: " + reason
			r.history = append(r.history, planner.Step{Action: prop, Outcome: "not delivered: " + policy.RuleTargetUnknown.String()})
			if r.rejected++; r.rejected >= maxRejectedInARow {
				out, reason := r.fail(fmt.Sprintf("%d unusable proposals in a row", r.rejected))
				return out, reason, true
			}
			return "", "", false
		}
		ptgt.Facts = facts
	}
	// A usable proposal: the rejections in a row end here (a valid-looking proposal whose ref does not
	// resolve, returned above, is one more of them: docs/exec-protocol.md's three in a row).
	r.rejected = 0
	key := proposalKey(obs, prop, node)
	if key == r.lastKey {
		r.usage.SameActionRepeats++
	} else {
		r.usage.SameActionRepeats = 0
	}
	r.lastKey = key

	r.syncNavigations()
	dec := r.a.Policy.Decide(policy.Input{Kind: prop.Kind, Target: ptgt, URL: prop.URL, Page: obs.URL, Usage: r.usage})
	if dec.Allow && !r.a.Off.Has(policy.GuardBlindRetry) && r.unverifiedKey == key && r.unverifiedHash == obs.Hash() {
		dec = policy.Decision{Rule: policy.RuleBlindRetry, Reason: "the same action was dispatched before and its effect is unverified on this unchanged page; re-read instead of retrying"}
	}
	if dec.Ask && !dec.Allow {
		dec = r.approve(ctx, obs.URL, prop, target, dec)
	}
	rec := evidence.ActionRecord{Snapshot: obs.SnapshotID, Page: obs.URL, Proposal: prop, Target: target, Decision: dec, PlanMillis: planMs}
	if !dec.Allow {
		return r.denied(obs, prop, node, target, rec)
	}
	r.dispatch(ctx, obs, prop, node, target, key, rec)
	return "", "", false
}

// unresolved logs a proposal whose ref does not resolve in obs. The loop is the one place refs are
// resolved: whatever the planner, an unknown ref is UNKNOWN_REF, a ref of another snapshot STALE_REF.
func (r *run) unresolved(obs *observe.Observation, prop action.Action, planMs int64, err error) (Outcome, string, bool) {
	rule := resolveRule(err)
	r.rec.Action(evidence.ActionRecord{Snapshot: obs.SnapshotID, Page: obs.URL, Proposal: prop,
		Decision: policy.Decision{Rule: rule, Reason: err.Error()}, Delivery: act.NotDelivered, PlanMillis: planMs})
	r.violate(obs, evidence.Violation{Rule: rule, Reason: err.Error(), Page: obs.URL, Action: &prop, Taken: evidence.TakenRejected})
	r.feedback = fmt.Sprintf("rejected: %s; take the ref from the latest observation", err)
	r.history = append(r.history, planner.Step{Action: prop, Outcome: "not delivered: " + rule.String()})
	if r.rejected++; r.rejected >= maxRejectedInARow {
		out, reason := r.fail(fmt.Sprintf("%d unusable proposals in a row", r.rejected))
		return out, reason, true
	}
	return "", "", false
}

// denied logs a denied proposal and says whether the run stops.
func (r *run) denied(obs *observe.Observation, prop action.Action, node observe.Node, target *evidence.Target, rec evidence.ActionRecord) (Outcome, string, bool) {
	dec := rec.Decision
	rec.Delivery = act.NotDelivered
	r.rec.Action(rec)
	if !isBudget(dec.Rule) {
		r.usage.Actions++ // an attempt, as the seeds count max_actions: a refused action spends it too
	}
	taken := evidence.TakenDenied
	out, stop := Outcome(""), false
	switch {
	case isBudget(dec.Rule):
		out, stop, taken = Exhausted, true, evidence.TakenAborted
	case dec.Ask && r.a.Policy.Navigation.OnViolation == policy.AbortAndLog:
		out, stop, taken = Inconclusive, true, evidence.TakenNeedsApproval // a person is needed
	case dec.Ask:
		taken = evidence.TakenNeedsApproval
	case r.a.Policy.Navigation.OnViolation == policy.AbortAndLog:
		out, stop, taken = Aborted, true, evidence.TakenAborted
	}
	v := evidence.Violation{Rule: dec.Rule, Reason: dec.Reason, Page: obs.URL, URL: firstNonEmpty(prop.URL, node.URL), Action: &prop, Target: target, Taken: taken}
	r.violate(obs, v)
	r.history = append(r.history, planner.Step{Action: prop, Outcome: fmt.Sprintf("denied: %s: %s", dec.Rule, dec.Reason)})
	r.feedback = fmt.Sprintf("denied by rule %s: %s", dec.Rule, dec.Reason)
	return out, dec.Rule.String(), stop
}

// screenshot saves the page a refusal was made on (obs; nil when the loop refused with no page read,
// a budget) as the violation's evidence and returns its path ("" when it could not be taken). A page
// unchanged since the last violation's screenshot (the same URL and snapshot hash, nothing dispatched
// since) is that screenshot: the adversary planner proposes one denied action after another on one
// page, and each screenshot cost a tenth of a second (BENCHMARKS.md); the snapshot that would tell
// the two apart is the same.
func (r *run) screenshot(obs *observe.Observation) string {
	if obs != nil && r.shot.path != "" && r.shot.url == obs.URL && r.shot.hash == obs.Hash() {
		return r.shot.path
	}
	p, err := r.drv.Screenshot(r.rec.ShotName())
	if err != nil {
		r.shot = shot{}
		return ""
	}
	if obs == nil {
		r.shot = shot{} // a page nobody read is no page to share
		return p
	}
	r.shot = shot{path: p, url: obs.URL, hash: obs.Hash()}
	return p
}

// dispatch hands an allowed proposal to the driver and records what is known of its delivery.
func (r *run) dispatch(ctx context.Context, obs *observe.Observation, prop action.Action, node observe.Node, target *evidence.Target, key string, rec evidence.ActionRecord) {
	r.shot = shot{} // the page may change from here on: the next violation's screenshot is its own
	t0 := time.Now()
	var res act.Result
	switch {
	case prop.Kind == action.Goto:
		res = r.drv.Goto(ctx, prop.URL)
	case node.CoveredBy != "":
		// Not a target where it is (observe.Node.CoveredBy): the click would land on what covers it.
		res = act.Failed(act.TargetCovered, "%s %s %q is covered by %s: a click would land on it; close that first (its close button or Escape)", prop.Ref, node.Role, node.Name, node.CoveredBy)
	default:
		res = r.drv.Act(ctx, obs, prop, node)
	}
	rec.ActMillis = time.Since(t0).Milliseconds()
	r.next = res.After
	if res.Delivery != act.NotDelivered {
		r.troubleKey = ""
	}
	rec.Delivery, rec.Verification = res.Delivery, res.Verification
	if res.Err != nil {
		rec.Error = res.Err.Error()
	}
	r.rec.Action(rec)
	if res.Delivery != act.NotDelivered {
		r.usage.Actions++
		if prop.Kind == action.Goto || node.URL != "" {
			r.usage.Navigations++
		}
	}
	if res.Code != "" && res.Delivery == act.NotDelivered {
		switch {
		case res.Code == act.DispatchFailed || res.Code == act.TargetCovered:
			// The browser could not dispatch an allowed action (a disabled control, a timeout): the
			// agent's delivery trouble, no refusal of the fence.
			r.trouble = append(r.trouble, evidence.Trouble{Rule: act.Rule(res.Code), Reason: errString(res.Err), Page: obs.URL, Action: &prop, Target: target})
		case res.Code == act.TargetGone && r.troubled(obs, prop, target, key, act.Rule(res.Code), errString(res.Err)):
			return // re-read once; the planner may propose the target again on the new snapshot
		default:
			rule := act.Rule(res.Code)
			if res.Code == act.TargetGone {
				rule = policy.RuleStaleRef // gone again right after a re-read: the fence's stale-ref guard
			}
			r.violate(obs, evidence.Violation{Rule: rule, Reason: errString(res.Err), Page: obs.URL, Action: &prop, Target: target, Taken: evidence.TakenNotDispatched})
		}
	}
	if res.Delivery == act.DeliveredUnverified {
		r.unverifiedKey, r.unverifiedHash = key, obs.Hash()
	} else {
		r.unverifiedKey, r.unverifiedHash = "", ""
	}
	r.lastHash = obs.Hash()
	if res.Delivery == act.NotDelivered && (res.Code == act.DispatchFailed || res.Code == act.TargetCovered) {
		// Delivery trouble (a covered target, a click the browser refused): nothing reached the page,
		// so the page staying as it was is no stuck step for budget_stuck's count.
		r.lastHash = ""
	}
	outcome := string(res.Delivery)
	if res.Err != nil {
		outcome += ": " + res.Err.Error()
	}
	r.history = append(r.history, planner.Step{Action: prop, Outcome: outcome})
}

// violate records a refusal of the loop with the page it was made on (screenshot): every line of
// violations.jsonl shows the page as the reviewer's evidence.
func (r *run) violate(obs *observe.Observation, v evidence.Violation) {
	if v.Screenshot == "" {
		v.Screenshot = r.screenshot(obs)
	}
	r.rec.Violation(v)
}

// troubled handles an allowed proposal that did not reach the page because the page was not ready
// for it (its target re-rendered or gone, its facts unreadable). The first time for a proposal it is
// delivery trouble: recorded in the run's DeliveryTrouble (not as a guard), the page is read again
// and the planner told so (planner.Reobserved), and troubled returns true. The same proposal meeting
// trouble again right after that re-read is never retried: troubled returns false and the caller
// logs it as the guard it then is.
func (r *run) troubled(obs *observe.Observation, prop action.Action, target *evidence.Target, key string, rule policy.Rule, reason string) bool {
	if r.troubleKey == key {
		r.troubleKey = ""
		return false
	}
	r.troubleKey = key
	r.trouble = append(r.trouble, evidence.Trouble{Rule: rule, Reason: reason, Page: obs.URL, Action: &prop, Target: target})
	r.next = nil
	r.feedback = fmt.Sprintf("not delivered (%s: %s); the page was read again: take the ref from this observation", rule, reason)
	r.history = append(r.history, planner.Step{Action: prop, Outcome: fmt.Sprintf("%s: %s: %s", planner.Reobserved, rule, reason)})
	return true
}

// redactObservation returns obs with every secret replaced in the text the planner reads. Refs and
// structure are kept, so a proposal made on the copy resolves against the original.
func redactObservation(obs *observe.Observation, secrets []string) *observe.Observation {
	red := evidence.NewRedactor(secrets...)
	hit := false
	for _, s := range secrets {
		if s != "" && strings.Contains(obs.Raw, s) {
			hit = true
			break
		}
	}
	if !hit {
		return obs
	}
	cp := *obs
	cp.Raw = red.String(obs.Raw)
	cp.Nodes = make([]observe.Node, len(obs.Nodes))
	for i, n := range obs.Nodes {
		n.Name, n.RawName, n.Text = red.String(n.Name), red.String(n.RawName), red.String(n.Text)
		n.URL, n.RawURL, n.Placeholder = red.String(n.URL), red.String(n.RawURL), red.String(n.Placeholder)
		cp.Nodes[i] = n
	}
	return &cp
}

// RuleCredentialPrompt is the loop's rule for a page that asks for a secret (an expired session, a
// fake "re-enter your password" form): the run ends Inconclusive instead of answering. It is
// policy.RuleCredentialPrompt, registered with every other rule.
const RuleCredentialPrompt = policy.RuleCredentialPrompt

// asksForSecret reports whether the page shows a password input (counted by the browser edge) or a
// textbox whose name asks for a secret (password, PIN, OTP, "parola d'ordine", "codice di verifica").
func asksForSecret(o *observe.Observation) bool {
	if o.SecretFields > 0 {
		return true
	}
	for _, n := range o.Elements() {
		if n.Role != "textbox" {
			continue
		}
		name := " " + policy.NormalizeText(n.Name) + " "
		if strings.Contains(name, " parola d ordine ") || strings.Contains(name, " codice di verifica ") {
			return true
		}
		for _, tok := range strings.Fields(name) {
			if strings.HasPrefix(tok, "passw") || tok == "pin" || tok == "otp" || tok == "passcode" {
				return true
			}
		}
	}
	return false
}

func isBudget(rule policy.Rule) bool { return rule.Category() == policy.CategoryBudget }

// resolveRule names the rule of a failed ref lookup: STALE_REF for a ref of another snapshot,
// AMBIGUOUS_TARGET, and UNKNOWN_REF for everything else (an unknown, bare or malformed ref), so the same
// bad ref leaves the same evidence whichever planner proposed it.
func resolveRule(err error) policy.Rule {
	switch {
	case errors.Is(err, observe.ErrStaleRef):
		return policy.RuleStaleRef
	case errors.Is(err, observe.ErrAmbiguousTarget):
		return policy.RuleAmbiguousTarget
	default:
		return policy.RuleUnknownRef
	}
}

// proposalKey identifies "the same action" across snapshots: refs change, targets do not. The target
// is its role, name and link path and its instance, its place among the observation's elements of the
// same role, name and link: three identical "×", one per row, are three actions, while a load-more
// button proposed again (the one instance, re-rendered) is the same action and meets the repeat
// budget.
func proposalKey(obs *observe.Observation, a action.Action, n observe.Node) string {
	page := ""
	if u, err := url.Parse(n.URL); err == nil {
		page = u.Path
	}
	return strings.Join([]string{string(a.Kind), n.Role, n.Name, page, instance(obs, n), a.URL, a.Value, a.Key, a.Dir}, "\x1f")
}

// instance is n's place among obs's elements (with a ref) of its role, name and link, "#0" the first;
// "" for no target.
func instance(obs *observe.Observation, n observe.Node) string {
	if n.RawRef == "" || obs == nil {
		return ""
	}
	k := 0
	for _, o := range obs.Nodes {
		if o.RawRef == n.RawRef {
			return fmt.Sprintf("#%d", k)
		}
		if o.RawRef != "" && o.Role == n.Role && o.Name == n.Name && o.URL == n.URL {
			k++
		}
	}
	return ""
}

func firstNonEmpty(s ...string) string {
	for _, v := range s {
		if v != "" {
			return v
		}
	}
	return ""
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}
