package policy

import (
	"fmt"
	"slices"
)

// DecideCapability rules on a browser capability: rule is one of RuleDialog, RuleDownload,
// RuleUpload, RulePopup, RulePermission and RuleServiceWorker. It allows when the policy's setting
// is allow (accept, for dialogs); dialogs under dismiss_and_log and everything else under
// block/deny are denied, and so is any other rule. It is the one capability decision: the browser's
// session asks it for each (its context settings, dialogs, downloads, uploads, popups, permission
// prompts and service workers). For a dialog it reads dialogs' default alone: DecideDialog decides
// each dialog by its message, the action that opened it and dialogs.rules.
func (p *Policy) DecideCapability(rule Rule) Decision {
	i := slices.IndexFunc(flatFields, func(f Field) bool { return f.Rule == rule && f.setting != nil })
	if i < 0 {
		return deny(RuleUnknownAction, "%q is not a capability rule", rule)
	}
	s, what := *flatFields[i].setting(p), flatFields[i].Key
	if s == Allow || s == Accept {
		return allowDecision()
	}
	return Decision{Rule: rule, Reason: fmt.Sprintf("%s: %s by policy", what, settingVerb(s))}
}

func settingVerb(s Setting) string {
	switch s {
	case DismissAndLog:
		return "dismissed"
	case Deny:
		return "denied"
	case Block:
		return "blocked"
	}
	return fmt.Sprintf("not allowed (setting %q)", s)
}
