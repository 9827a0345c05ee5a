package policy

import (
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/trapline/trapline/agentkit/action"
)

// Approval lists the dangerous actions that a person must confirm (actions.require_approval): Decide
// answers them with the third decision, Ask (Decision.Ask, rule RuleNeedsApproval), instead of
// allowing or denying them. The run hands an Ask to its approver (agentkit.Approver); in CI the
// default approver refuses and logs needs_approval.
//
//	actions:
//	  require_approval:
//	    categories: [money]                                     # deny-word categories that ask instead of deny
//	    writes: [{method: POST, path: "^/pratiche/[0-9]+/paga$"}] # form submissions that ask (also list them in writes)
//	    kinds: [press]                                          # action kinds that always ask
type Approval struct {
	// Categories are deny-word categories whose match asks a person instead of denying.
	Categories []string `policy:"categories"`
	// Writes are writes (method + path) that ask before a form submits them. The network layers
	// cannot ask: a write listed here must also be in actions.writes, or it is blocked after approval.
	Writes []Write `policy:"writes"`
	// Kinds are action kinds (click, fill, select, press, goto) that always ask.
	Kinds []string `policy:"kinds"`
}

// ask is the decision that hands an action to a person.
func ask(format string, args ...any) Decision {
	d := deny(RuleNeedsApproval, format, args...)
	d.Ask = true
	return d
}

// approvalCategory reports whether a deny-word category asks instead of denying.
func (p *Policy) approvalCategory(cat string) bool {
	return slices.Contains(p.Actions.RequireApproval.Categories, cat)
}

// approvalWrite reports whether a request is a write that needs a person.
func (p *Policy) approvalWrite(method, path string) bool {
	for _, w := range p.Actions.RequireApproval.Writes {
		if (w.Method == "*" || strings.EqualFold(w.Method, method)) && w.Path != nil && w.Path.MatchString(path) {
			return true
		}
	}
	return false
}

// approvalKind reports whether every action of a kind needs a person.
func (p *Policy) approvalKind(kind action.Kind) bool {
	return slices.Contains(p.Actions.RequireApproval.Kinds, string(kind))
}

// approval decodes actions.require_approval.
func (d *decoder) approval(n *yaml.Node, field string, a *Approval) {
	d.mapping(n, field, handlers{
		"categories": func(v *yaml.Node, f string) { a.Categories, _ = list(d, v, f, d.nonEmptyStr) },
		"writes":     func(v *yaml.Node, f string) { a.Writes, _ = list(d, v, f, d.write) },
		"kinds": func(v *yaml.Node, f string) {
			a.Kinds, _ = list(d, v, f, func(it *yaml.Node, fi string) (string, bool) {
				return d.enum(it, fi, string(KindGoto), string(KindClick), string(KindFill), string(KindSelect), string(KindPress), string(KindHover))
			})
		},
	})
}

// approvalSummary is the require_approval part of Summary, when the policy has one.
func (p *Policy) approvalSummary(line func(string, ...any)) {
	a := p.Actions.RequireApproval
	if len(a.Categories)+len(a.Writes)+len(a.Kinds) == 0 {
		return
	}
	writes := make([]string, len(a.Writes))
	for i, w := range a.Writes {
		writes[i] = w.Method + " " + w.Path.String() + writeScope(w)
	}
	line("ask a person first: deny-word categories %s; writes %s; action kinds %s",
		listOrNone(a.Categories), listOrNone(writes), listOrNone(a.Kinds))
}
