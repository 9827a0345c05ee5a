package agentkit_test

import (
	"slices"
	"testing"

	"github.com/trapline/trapline/agentkit"
	"github.com/trapline/trapline/agentkit/act"
	"github.com/trapline/trapline/agentkit/policy"
	"github.com/trapline/trapline/internal/agenttest"
)

const paySnapshot = `- generic [ref=e1]:
  - heading "Diritti di segreteria" [level=1] [ref=e2]
  - button "Paga ora" [ref=e3]
`

var clickPay = clickEveryTurn("Paga ora")

func approvalPolicy(t *testing.T, onViolation policy.OnViolation) *policy.Policy {
	return agenttest.ReferencePolicy(t, func(p *policy.Policy) {
		p.Actions.RequireApproval.Categories = []string{"money"}
		p.Navigation.OnViolation = onViolation
		p.Budget.MaxSameActionRepeats = 100
	})
}

func runApproved(t *testing.T, pol *policy.Policy, ap agentkit.Approver, d *fakeDriver) (agentkit.Result, []string) {
	t.Helper()
	res, vs := agenttest.Run(t, &agentkit.Agent{Policy: pol, Planner: clickPay, Approver: ap}, d, agentkit.Task{StartURL: pageURL, Goal: "paga i diritti"})
	return res, rules(vs)
}

// The CI default approver refuses: nothing is dispatched, needs_approval is logged, and under
// abort_and_log the run ends Inconclusive (a person is needed).
func TestAskWithoutApproverIsRefused(t *testing.T) {
	d := &fakeDriver{Page: agenttest.Page{Snapshot: paySnapshot}}
	res, vs := runApproved(t, approvalPolicy(t, policy.AbortAndLog), nil, d)
	if len(d.Dispatched) != 0 || res.Outcome != agentkit.Inconclusive || !slices.Contains(vs, string(policy.RuleNeedsApproval)) {
		t.Fatalf("dispatched %v, outcome %s (%s), violations %v", d.Dispatched, res.Outcome, res.Reason, vs)
	}
}

// A scripted approver approves exactly one action; the approval is consumed by that one dispatch,
// so the same proposal, made again after an unverified dispatch, is asked again and refused.
func TestScriptedApprovalIsConsumedByOneDispatch(t *testing.T) {
	for _, delivery := range []act.Delivery{act.Delivered, act.DeliveredUnverified, act.NotDelivered} {
		d := &fakeDriver{Page: agenttest.Page{Snapshot: paySnapshot, Delivery: delivery}}
		ap := agentkit.NewScriptedApprover("button", "Paga ora")
		pol := approvalPolicy(t, policy.BlockAndLog)
		pol.Budget.MaxActions = 5
		_, vs := runApproved(t, pol, ap, d)
		if len(d.Dispatched) != 1 || ap.Remaining() != 0 {
			t.Errorf("%s: dispatched %d times (%v), %d approvals left; want exactly one dispatch under one approval", delivery, len(d.Dispatched), d.Dispatched, ap.Remaining())
		}
		if !slices.Contains(vs, string(policy.RuleNeedsApproval)) {
			t.Errorf("%s: the second proposal was not refused with needs_approval: %v", delivery, vs)
		}
	}
}
