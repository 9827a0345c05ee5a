package agentkit

import (
	"context"
	"fmt"
	"sync"

	"github.com/trapline/trapline/agentkit/action"
	"github.com/trapline/trapline/agentkit/evidence"
	"github.com/trapline/trapline/agentkit/policy"
)

// ApprovalRequest is one action the policy will not decide alone (policy.Decision.Ask): what a person
// is asked to confirm.
//
// A dialog the policy asks about (a dialogs rule's then: ask) comes as a request too: its Target is
// the dialog, role DialogRole and name its message (NewScriptedApprover(agentkit.DialogRole,
// "Confermi il salvataggio?") approves it once), its Action and Opener the action being dispatched
// when it opened and that action's target (zero and nil when none was).
type ApprovalRequest struct {
	Page     string           // the page the action is on
	Action   action.Action    // the proposal
	Target   *evidence.Target // its target, nil for a goto
	Decision policy.Decision  // the Ask decision, with the rule's reason
	// Opener is, for a dialog, the target of the action that opened it; nil otherwise.
	Opener *evidence.Target
}

// DialogRole is the role of an ApprovalRequest's Target when what is asked about is a dialog.
const DialogRole = "dialog"

// Approver is the person (or the stand-in for one) who answers an Ask. An approval covers one
// dispatch of one proposal: the loop asks again for every later proposal, the same one included, so a
// failed or unverified dispatch is never repeated under an approval already used. An error counts
// as a refusal.
type Approver interface {
	Approve(ctx context.Context, req ApprovalRequest) (approved bool, reason string, err error)
}

// DenyApprovals is the default approver, the one CI has: nobody is there to ask, so every Ask is
// refused and logged as needs_approval.
type DenyApprovals struct{}

// Approve refuses.
func (DenyApprovals) Approve(context.Context, ApprovalRequest) (bool, string, error) {
	return false, "no person to ask: approvals are refused (the default approver)", nil
}

// ScriptedApprover approves, for tests, exactly the actions it lists, each once: an approval whose
// Role and Name match the target is spent by the first request it answers. Everything else is refused.
type ScriptedApprover struct {
	mu        sync.Mutex
	approvals []scriptedApproval
}

type scriptedApproval struct {
	role, name string
	used       bool
}

// NewScriptedApprover returns an approver that approves one action on each target named by a
// (role, name) pair: NewScriptedApprover("button", "Conferma pagamento").
func NewScriptedApprover(roleNamePairs ...string) *ScriptedApprover {
	a := &ScriptedApprover{}
	for i := 0; i+1 < len(roleNamePairs); i += 2 {
		a.approvals = append(a.approvals, scriptedApproval{role: roleNamePairs[i], name: roleNamePairs[i+1]})
	}
	return a
}

// Approve approves the request when an unspent approval matches its target, and spends it.
func (a *ScriptedApprover) Approve(_ context.Context, req ApprovalRequest) (bool, string, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if req.Target == nil {
		return false, "scripted approver: no approval for an action without a target", nil
	}
	for i := range a.approvals {
		ap := &a.approvals[i]
		if !ap.used && ap.role == req.Target.Role && ap.name == req.Target.Name {
			ap.used = true
			return true, fmt.Sprintf("scripted approval of %s %q (used now)", ap.role, ap.name), nil
		}
	}
	return false, fmt.Sprintf("scripted approver: no unspent approval for %s %q", req.Target.Role, req.Target.Name), nil
}

// Remaining reports how many approvals are still unspent.
func (a *ScriptedApprover) Remaining() int {
	a.mu.Lock()
	defer a.mu.Unlock()
	n := 0
	for _, ap := range a.approvals {
		if !ap.used {
			n++
		}
	}
	return n
}

// approve hands an Ask to the run's approver and returns the decision that stands: allowed (for this
// one dispatch) with the approver's reason, or the refusal, rule needs_approval.
func (r *run) approve(ctx context.Context, obs string, prop action.Action, target *evidence.Target, dec policy.Decision) policy.Decision {
	var ap Approver = DenyApprovals{}
	if r.a.Approver != nil {
		ap = r.a.Approver
	}
	ok, why, err := ap.Approve(ctx, ApprovalRequest{Page: obs, Action: prop, Target: target, Decision: dec})
	if err != nil {
		ok, why = false, "the approver failed: "+err.Error()
	}
	if !ok {
		return policy.Decision{Ask: true, Rule: policy.RuleNeedsApproval, Reason: dec.Reason + "; not approved: " + why}
	}
	return policy.Decision{Allow: true, Ask: true, Rule: policy.RuleNeedsApproval, Reason: dec.Reason + "; approved: " + why}
}
