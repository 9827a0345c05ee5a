package policy

import (
	"fmt"
	"slices"
	"strings"

	"github.com/trapline/trapline/agentkit/action"
)

// Decide rules on one proposed action. It is pure: no I/O, no clock; the caller supplies Usage.
//
// The checks run in this order and the first that denies decides:
//  1. the kind must be one of action.Kinds() (RuleUnknownAction);
//  2. budgets, for every kind but read and done: actions, seconds, same-action repeats (the
//     max_same_action_repeats-th identical action in a row is refused), stuck
//     actions, tokens, and navigations for every kind that may navigate: goto, click, press and
//     select (a button may submit a form, a script may follow a click or a change); Usage.Navigations
//     counts the browser's own navigations where the driver keeps that count (RuleBudget*);
//  3. for click, fill, select and press: an unnamed target (RuleUnnamedElement, unless
//     actions.unnamed is allow; a missing Target counts as unnamed) and deny words in the target's
//     name (RuleDenyWord, unless an exception matches role, exact name and page path);
//     then what the DOM says the action will do, when Target.Facts is set (see checkFacts);
//     a hover passes these rules: it moves the pointer and is no effect of its own (hovering
//     "Elimina" is allowed, clicking it is not), and its ref was resolved fail-closed by the loop;
//  4. the destination of a goto, or the Href of a clicked or pressed link, as a GET navigation
//     through DecideRequest (a relative Href is resolved against Input.Page);
//  5. actions.require_approval: a deny word of a listed category, a form submission to a listed
//     write, or a listed kind gives the third decision, Ask (RuleNeedsApproval, Allow false);
//  6. otherwise RuleAllowed.
func (p *Policy) Decide(in Input) Decision {
	if !slices.Contains(action.Kinds(), in.Kind) {
		return deny(RuleUnknownAction, "unknown action kind %q", in.Kind)
	}
	isElement := in.Kind == KindClick || in.Kind == KindFill || in.Kind == KindSelect || in.Kind == KindPress
	dest := ""
	switch {
	case in.Kind == KindGoto:
		dest = in.URL
		if dest == "" {
			return deny(RuleInvalidURL, "goto has no URL")
		}
	case (in.Kind == KindClick || in.Kind == KindPress) && in.Target != nil && in.Target.Href != "":
		dest = in.Target.Href
	}
	if in.Kind != KindRead && in.Kind != KindDone {
		mayNavigate := dest != "" || in.Kind == KindClick || in.Kind == KindPress || in.Kind == KindSelect
		if d, ok := p.checkBudget(in.Usage, mayNavigate); !ok {
			return d
		}
	}
	if isElement {
		if d, ok := p.checkTarget(in); !ok {
			return d
		}
		if in.Target != nil {
			if d, ok := p.checkFacts(in, *in.Target); !ok {
				return d
			}
		}
	}
	if dest != "" {
		if d := p.DecideRequest(Request{Method: "GET", URL: resolveRef(in.Page, dest), Navigation: true}); !d.Allow {
			return d
		}
	}
	if p.approvalKind(in.Kind) {
		return ask("every %s needs a person's approval (actions.require_approval.kinds)", in.Kind)
	}
	return allowDecision()
}

// checkBudget applies the budgets; navigates says whether the action is a navigation.
func (p *Policy) checkBudget(u Usage, navigates bool) (Decision, bool) {
	b := p.Budget
	switch {
	case u.Actions >= b.MaxActions:
		return deny(RuleBudgetActions, "action budget spent: %d of %d actions used", u.Actions, b.MaxActions), false
	case u.Elapsed >= b.MaxDuration:
		return deny(RuleBudgetSeconds, "time budget spent: %s elapsed of %s", u.Elapsed, b.MaxDuration), false
	case u.SameActionRepeats+1 >= b.MaxSameActionRepeats:
		// As in the seeds: the proposal that makes max_same_action_repeats identical actions in a row
		// is stopped (limit 3: the third is refused).
		return deny(RuleBudgetRepeats, "the same action was proposed %d times in a row (limit %d)", u.SameActionRepeats+1, b.MaxSameActionRepeats), false
	case u.UnchangedActions >= b.MaxStuckActions:
		return deny(RuleBudgetStuck, "the page did not change after %d actions in a row (limit %d)", u.UnchangedActions, b.MaxStuckActions), false
	case b.MaxTokens > 0 && u.Tokens >= b.MaxTokens:
		return deny(RuleBudgetTokens, "token budget spent: %d of %d tokens used", u.Tokens, b.MaxTokens), false
	case navigates && u.Navigations >= b.MaxNavigations:
		return deny(RuleBudgetNav, "navigation budget spent: %d of %d navigations used", u.Navigations, b.MaxNavigations), false
	}
	return Decision{}, true
}

// Unnamed reports whether the policy reads name as no name at all, as its unnamed rule
// (actions.unnamed) does: empty, or icon-only ("×", "🗑": nothing is left once normalised). Such a
// name gives a planner nothing to choose by, so the driver tells its repeated instances apart by ref
// and record (observe.SameInstance) instead of refusing them as ambiguous.
func (p *Policy) Unnamed(name string) bool {
	if p.off.Has(GuardTextNormalization) {
		return lowerOnly(name) == ""
	}
	return NormalizeText(name) == ""
}

// checkTarget applies the element rules: unnamed elements, deny words and their exceptions.
func (p *Policy) checkTarget(in Input) (Decision, bool) {
	t := Target{}
	if in.Target != nil {
		t = *in.Target
	}
	name := NormalizeText(t.Name)
	if p.off.Has(GuardTextNormalization) {
		name = lowerOnly(t.Name)
	}
	if name == "" {
		if p.Actions.Unnamed == Allow || p.off.Has(GuardUnnamedRule) {
			return Decision{}, true
		}
		return deny(RuleUnnamedElement, "%s on an element with no accessible name (role %q)", in.Kind, t.Role), false
	}
	cat, root, ok := p.matchName(t.Name, name)
	if !ok || p.exceptionFor(t, in.Page) {
		return Decision{}, true
	}
	if p.approvalCategory(cat) {
		return ask("name %q matches deny word %q (%s), a category that needs a person's approval", t.Name, root, cat), false
	}
	return deny(RuleDenyWord, "name %q matches deny word %q (%s)", t.Name, root, cat), false
}

// matchName matches the deny words on text whose normalised form (NormalizeText, or lowerOnly with
// the text-normalisation guard off) is norm; with the guard on, CompactText's reading too.
func (p *Policy) matchName(text, norm string) (category, root string, ok bool) {
	if p.off.Has(GuardTextNormalization) {
		return p.Actions.matchNormalized(norm, false)
	}
	return p.Actions.matchText(text, norm)
}

// exceptionFor reports whether an exception allows t on the page at pageURL.
func (p *Policy) exceptionFor(t Target, pageURL string) bool {
	if len(p.Actions.Exceptions) == 0 {
		return false
	}
	u, err := ParseURL(pageURL)
	if err != nil {
		return false
	}
	path := u.Path
	for _, e := range p.Actions.Exceptions {
		if strings.EqualFold(e.Role, t.Role) && e.Name == t.Name && e.Page.MatchString(path) {
			return true
		}
	}
	return false
}

// resolveRef resolves a possibly relative reference against the page URL as the browser does
// (ResolveURL); on any parse problem it returns ref unchanged and lets DecideRequest reject it.
func resolveRef(page, ref string) string {
	abs, err := ResolveURL(page, ref)
	if err != nil {
		return ref
	}
	return abs
}

// deny is a denying decision by rule. Its reason never carries a URL's user information
// (RedactUserinfo): it is logged and reported.
func deny(rule Rule, format string, args ...any) Decision {
	return Decision{Allow: false, Rule: rule, Reason: RedactUserinfo(fmt.Sprintf(format, args...))}
}

// allowDecision is the one allowing decision.
func allowDecision() Decision {
	return Decision{Allow: true, Rule: RuleAllowed, Reason: "no rule denies it"}
}
