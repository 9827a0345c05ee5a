package browser

import (
	"context"
	"strconv"

	playwright "github.com/mxschmitt/playwright-go"

	"github.com/trapline/trapline/agentkit"
	"github.com/trapline/trapline/agentkit/action"
	"github.com/trapline/trapline/agentkit/evidence"
	"github.com/trapline/trapline/agentkit/observe"
	"github.com/trapline/trapline/agentkit/policy"
)

// ConsoleDialog is the type of the console.jsonl record of a dialog the session accepted (a dialog it
// dismissed is a violation, rule dialog, in violations.jsonl): every dialog decision is in the evidence.
const ConsoleDialog = "dialog"

// dialogOpener is the action the session is dispatching, kept for the dialogs it opens: a dialog
// rule's after names the element of the action that opened the dialog (policy.Dialog.Opener).
type dialogOpener struct {
	ctx    context.Context
	action action.Action
	target *observe.Node // the action's element; nil when it has none (or it could not be read)
}

// dispatching records a, whose target obs describes, as the action being dispatched until the
// returned function is called: a dialog that opens in between was opened by a (its click, its
// press, or the page's reaction to it while the session waits for the page to settle).
func (s *Session) dispatching(ctx context.Context, a action.Action, obs *observe.Observation) func() {
	o := &dialogOpener{ctx: ctx, action: a}
	if obs != nil {
		if _, raw, err := observe.SplitRef(a.Ref); err == nil {
			if n, ok := findRaw(obs, raw); ok {
				o.target = &n
			}
		}
	}
	s.opener.Store(o)
	return func() { s.opener.CompareAndSwap(o, nil) }
}

// answerDialog accepts or dismisses a dialog as the policy decides (policy.DecideDialog: dialogs'
// rules on its message and on the action that opened it, else dialogs' default), asking the
// session's Approver when the policy asks. An accepted dialog is recorded in console.jsonl
// (ConsoleDialog), a dismissed one in violations.jsonl (rule dialog). A dialog of another page than
// the session's (a popup's) has no opener: the session's action did not open it.
func (s *Session) answerDialog(d playwright.Dialog) {
	o := s.opener.Load()
	if d.Page() != s.page {
		o = nil
	}
	in := policy.Dialog{Type: d.Type(), Message: d.Message()}
	if o != nil && o.target != nil {
		in.Opener = &policy.Target{Role: o.target.Role, Name: o.target.Name}
	}
	dec := s.opts.Policy.DecideDialog(in)
	if dec.Ask {
		dec = s.askDialog(o, in, dec)
	}
	why := dec.Reason + openedBy(o)
	if dec.Allow {
		s.opts.Recorder.Console(evidence.ConsoleRecord{Type: ConsoleDialog, Text: why, Page: s.pageURL()})
		_ = d.Accept()
		return
	}
	v := evidence.Violation{Rule: policy.RuleDialog, Reason: why, Page: s.pageURL(), Taken: evidence.TakenDismissed}
	s.refuse(v, func() { _ = d.Dismiss() }) // dismissed first: a page with a dialog open takes no screenshot
}

// askDialog hands a dialog the policy asks about to the session's Approver (DenyApprovals when none):
// the decision that stands is an accept with the approver's reason, or the refusal, rule dialog.
func (s *Session) askDialog(o *dialogOpener, in policy.Dialog, dec policy.Decision) policy.Decision {
	var ap agentkit.Approver = agentkit.DenyApprovals{}
	if s.opts.Approver != nil {
		ap = s.opts.Approver
	}
	ctx := context.Background()
	req := agentkit.ApprovalRequest{Page: s.pageURL(), Decision: dec,
		Target: &evidence.Target{Role: agentkit.DialogRole, Name: in.Message}}
	if o != nil {
		ctx, req.Action = o.ctx, o.action
		if t := o.target; t != nil {
			req.Opener = &evidence.Target{Ref: t.Ref, Role: t.Role, Name: t.Name}
		}
	}
	ok, why, err := ap.Approve(ctx, req)
	if err != nil {
		ok, why = false, "the approver failed: "+err.Error()
	}
	if !ok {
		return policy.Decision{Rule: policy.RuleDialog, Reason: dec.Reason + "; not approved: " + why}
	}
	return policy.Decision{Allow: true, Ask: true, Rule: policy.RuleNeedsApproval, Reason: dec.Reason + "; approved: " + why}
}

// openedBy names the action that opened a dialog, for its record.
func openedBy(o *dialogOpener) string {
	switch {
	case o == nil:
		return " (opened while no action was being dispatched)"
	case o.target == nil:
		return " (opened by " + string(o.action.Kind) + ")"
	}
	return " (opened by " + string(o.action.Kind) + " " + o.target.Role + " " + strconv.Quote(o.target.Name) + ")"
}
