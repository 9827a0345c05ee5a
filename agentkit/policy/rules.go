package policy

import (
	"fmt"
	"slices"
	"strings"
)

// Layer says which part of the fence applies a rule.
type Layer string

// The layers, from the planner outwards.
const (
	LayerPlanner Layer = "planner" // the loop rejects what the planner produced
	LayerDecide  Layer = "decide"  // Policy.Decide on a proposed action
	LayerResolve Layer = "resolve" // the loop or the driver resolves a ref fail-closed
	LayerLoop    Layer = "loop"    // the loop's own guards (blind retry, credential prompts)
	LayerRequest Layer = "request" // Policy.DecideRequest: the route gate and the proxy
	LayerBrowser Layer = "browser" // browser events: dialogs, downloads, popups, permissions
	LayerProxy   Layer = "proxy"   // the egress proxy's own rules
	// LayerTool is an agent under test's own tool (an MCP server's or a browser CLI's fence), as the
	// tool answered trapline's call with a refusal.
	LayerTool Layer = "tool"
)

// Category groups rules by what they guard; reports read it (navigation rules are a prompt
// injection's sign, budget rules a runaway's).
type Category string

// The categories of the registry.
const (
	CategoryAllow       Category = "allow"
	CategoryNavigation  Category = "navigation"
	CategoryElement     Category = "element"
	CategoryBudget      Category = "budget"
	CategoryCapability  Category = "capability"
	CategoryRef         Category = "ref"
	CategoryPlanner     Category = "planner"
	CategoryDelivery    Category = "delivery"
	CategoryCredentials Category = "credentials"
	CategoryProxy       Category = "proxy"
	CategoryTool        Category = "tool"
)

// String returns the layer's name, as reasons and reports write it.
func (l Layer) String() string { return string(l) }

// RuleInfo is one entry of the rule registry: what a rule id means and where it is applied.
type RuleInfo struct {
	ID       Rule
	Layer    Layer
	Category Category
	Meaning  string // one line for reports and lint output
}

// Rules applied outside Decide, named here so every layer writes the same id. The ref codes keep their
// upper-case wire values (STALE_REF, ...): evidence and baselines already carry them.
const (
	RuleInvalidProposal  Rule = "invalid_proposal"
	RuleBlindRetry       Rule = "blind_retry"
	RuleCredentialPrompt Rule = "credential_prompt"
	RuleHumanCheck       Rule = "human_check"
	RuleOneTimeCode      Rule = "one_time_code"
	RuleStaleRef         Rule = "STALE_REF"
	RuleUnknownRef       Rule = "UNKNOWN_REF"
	RuleAmbiguousTarget  Rule = "AMBIGUOUS_TARGET"
	RuleUnnamedTarget    Rule = "UNNAMED_TARGET"
	RuleDispatchFailed   Rule = "DISPATCH_FAILED"
	// RuleTargetGone: the target is gone from the page since the snapshot (a partial swap re-rendered
	// it): delivery trouble, not a refusal of the fence.
	RuleTargetGone Rule = "target_gone"
	// RulePointerSwap: what a click will do changed when the pointer arrived or the button went down
	// (a handler, a form's action, the element under the pointer): the click was not completed.
	RulePointerSwap Rule = "pointer_swap"
	// RuleTargetCovered: another element (an overlay, a side panel, a modal, a menu) lies on top of the
	// target at its centre: a click would land on that one. Not dispatched; delivery trouble, no guard.
	RuleTargetCovered    Rule = "target_covered"
	RuleDefaultDeny      Rule = "default_deny"
	RuleUnmappedHost     Rule = "unmapped_host"
	RuleNotAProxyRequest Rule = "not_a_proxy_request"
	RuleRulesPanic       Rule = "rules_panic"
	RuleTunnelUnjudged   Rule = "tunnel_unjudged"
	RuleTunnelHost       Rule = "tunnel_host_mismatch"
	// RuleDevToolsDoor: the proxy's narrow door to the run's own browser's DevTools port
	// (proxy.DevToolsDoor): a WebSocket upgrade from an extension loaded in that browser is admitted,
	// everything else to that port refused.
	RuleDevToolsDoor Rule = "devtools_door"
	// RuleForgedInternalHeader: an upstream response carried a header the proxy keeps for itself
	// (X-Trapline-*), as if the proxy had refused it.
	RuleForgedInternalHeader Rule = "forged_internal_header"
	// RuleUpgradeRefused: an upstream switched protocols (101) without a genuine WebSocket handshake,
	// or a switched connection carried bytes that are not WebSocket framing (issue 49.4).
	RuleUpgradeRefused Rule = "upgrade_refused"
	// RuleMalformedRequest: Go's HTTP server refused a request before the proxy could judge it
	// (malformed, bad Host, headers too large), or the connection ended mid-request.
	RuleMalformedRequest Rule = "malformed_request"
	// RuleToolRefused: an agent tool's own fence refused an action (its answer said so in a fence's
	// words: a policy, a domain not allowed, a confirmation required).
	RuleToolRefused Rule = "tool_refused"
)

// registry is every rule trapline writes. Adding a rule is one line here (and its constant).
var registry = []RuleInfo{
	{RuleAllowed, LayerDecide, CategoryAllow, "no rule denies the action or request"},
	{RuleInvalidURL, LayerRequest, CategoryNavigation, "the destination is not a URL the policy can judge"},
	{RuleSchemeNotAllowed, LayerRequest, CategoryNavigation, "the URL's scheme is not http or https"},
	{RuleHostNotAllowed, LayerRequest, CategoryNavigation, "the host is not on the navigation allowlist"},
	{RulePathNotAllowed, LayerRequest, CategoryNavigation, "the host is allowed but not this path"},
	{RuleDenyPath, LayerRequest, CategoryNavigation, "the path matches a deny path (deny wins over allow)"},
	{RuleDenyWord, LayerDecide, CategoryElement, "the target's normalised name contains a deny word"},
	{RuleUnnamedElement, LayerDecide, CategoryElement, "the target has no accessible name"},
	{RuleWriteNotAllowed, LayerRequest, CategoryNavigation, "a non-GET request to a method and path not on the write allowlist"},
	{RuleObserveMode, LayerRequest, CategoryNavigation, "the policy observes only: no write leaves the browser"},
	{RuleBudgetActions, LayerDecide, CategoryBudget, "the action budget is spent"},
	{RuleBudgetNav, LayerDecide, CategoryBudget, "the navigation budget is spent"},
	{RuleBudgetSeconds, LayerDecide, CategoryBudget, "the time budget is spent"},
	{RuleBudgetRepeats, LayerDecide, CategoryBudget, "the same action was proposed too many times in a row"},
	{RuleBudgetStuck, LayerDecide, CategoryBudget, "the page did not change after too many actions in a row"},
	{RuleBudgetTokens, LayerDecide, CategoryBudget, "the model token budget is spent"},
	{RuleUnknownAction, LayerDecide, CategoryElement, "the action kind is not in the closed set"},
	{RuleDialog, LayerBrowser, CategoryCapability, "a dialog was dismissed"},
	{RuleDownload, LayerBrowser, CategoryCapability, "a download was cancelled"},
	{RuleUpload, LayerBrowser, CategoryCapability, "a file chooser was refused"},
	{RulePopup, LayerBrowser, CategoryCapability, "a popup was closed or gated"},
	{RulePermission, LayerBrowser, CategoryCapability, "a permission prompt was refused"},
	{RuleServiceWorker, LayerBrowser, CategoryCapability, "a service-worker registration was refused"},
	{RuleWriteOperation, LayerRequest, CategoryNavigation, "a listed write whose operation (fields, values, the GraphQL operations its document holds) is not the one allowed, or that names a deny_fields entry"},
	{RuleRequestDenyWord, LayerRequest, CategoryNavigation, "a query or body field name or value matches a requests.deny_words root"},
	{RuleOutsideURLParam, LayerRequest, CategoryNavigation, "a query or body value is a URL of a host outside the allowlist"},
	{RuleBodyTooLarge, LayerRequest, CategoryNavigation, "the request body is longer than requests.max_body_bytes"},
	{RuleBodyUnreadable, LayerRequest, CategoryNavigation, "the request body is malformed, of a content type the rules cannot read, or (proxy) did not arrive within the body timeout"},
	{RuleResponseDownload, LayerRequest, CategoryCapability, "the proxy cut a response its headers name as an executable or archive download, or whose Content-Disposition or Content-Type cannot be read or is ambiguous"},
	{RuleAmbiguousRequest, LayerRequest, CategoryNavigation, "a request carrying one name twice where a backend may read either copy (a repeated JSON key in any spelling, a name in both query and body, a GraphQL parameter twice), or a body in a charset the rules do not read"},
	{RuleGraphQLPersisted, LayerRequest, CategoryNavigation, "a GraphQL request naming a stored document (persisted-query hash, documentId) instead of sending it, under a policy with an operations rule: it cannot be judged"},
	{RuleUnseenChannel, LayerRequest, CategoryNavigation, "speculation rules, or a beacon or keepalive request sent while the page is left, refused in the page (the route gate cannot see them)"},
	{RuleLabelMismatch, LayerDecide, CategoryElement, "the visible text says a deny word the accessible name does not (a lying label)"},
	{RuleNeedsApproval, LayerDecide, CategoryElement, "ask: a require_approval rule matched and no person approved the action"},
	{RuleTargetUnknown, LayerLoop, CategoryRef, "what the action would do could not be read from the page: not dispatched"},
	{RuleSecretsUnknown, LayerLoop, CategoryCredentials, "whether the page asks for a secret could not be read: the run stops Inconclusive"},
	{RuleStorageStateStripped, LayerLoop, CategoryCredentials, "a cookie of a host the policy does not allow, or an origin's local storage, was left out of the run's context"},
	{RuleIncompleteTarget, LayerLoop, CategoryRef, "the target is not in an incomplete snapshot: unknown, not absent; the run stops Inconclusive"},
	{RuleInvalidProposal, LayerPlanner, CategoryPlanner, "the planner's output is not a valid action"},
	{RuleBlindRetry, LayerLoop, CategoryDelivery, "an action whose delivery is unverified was proposed again on the unchanged page"},
	{RuleCredentialPrompt, LayerLoop, CategoryCredentials, "the page asks for a secret: the run stops Inconclusive"},
	{RuleHumanCheck, LayerLoop, CategoryCredentials, "the page asks to prove a human is there (a CAPTCHA): never solved; the run stops Inconclusive"},
	{RuleOneTimeCode, LayerLoop, CategoryCredentials, "the page asks for a one-time code (SMS, OTP, verification code): never typed; the run stops Inconclusive"},
	{RuleStaleRef, LayerResolve, CategoryRef, "the ref is from another snapshot or its element changed (or is gone, a second time in a row)"},
	{RuleTargetGone, LayerResolve, CategoryDelivery, "the target is gone from the page since the snapshot (re-rendered by a partial swap): not dispatched; the loop re-reads the page once (delivery trouble, no guard)"},
	{RuleUnknownRef, LayerResolve, CategoryRef, "the ref names no element of the observation"},
	{RulePointerSwap, LayerResolve, CategoryRef, "what the click will do changed when the pointer arrived or the button went down (its handler, its form's action, the element under the pointer): the click was not completed"},
	{RuleAmbiguousTarget, LayerResolve, CategoryRef, "the target matches more than one element"},
	{RuleUnnamedTarget, LayerResolve, CategoryRef, "the target has no name to re-check it by"},
	{RuleDispatchFailed, LayerResolve, CategoryDelivery, "the browser could not dispatch the action; it did not reach the page"},
	{RuleTargetCovered, LayerResolve, CategoryDelivery, "another element (an overlay, a panel, a modal, a menu) lies on top of the target: a click would land on it; not dispatched (delivery trouble, no guard): close what covers it first"},
	{RuleDefaultDeny, LayerProxy, CategoryProxy, "the proxy has no rules: everything is denied"},
	{RuleUnmappedHost, LayerProxy, CategoryProxy, "the destination is not mapped in the staging world"},
	{RuleNotAProxyRequest, LayerProxy, CategoryProxy, "a request addressed to the proxy itself"},
	{RuleRulesPanic, LayerProxy, CategoryProxy, "the proxy's rules panicked: it failed closed"},
	{RuleTunnelUnjudged, LayerProxy, CategoryProxy, "a CONNECT tunnel the proxy cannot judge request by request: the client failed the TLS handshake with the world's CA, or spoke neither TLS nor HTTP"},
	{RuleTunnelHost, LayerProxy, CategoryProxy, "a request inside a CONNECT tunnel names another host or port than the tunnel's"},
	{RuleDevToolsDoor, LayerProxy, CategoryProxy, "the door to the run's own browser's DevTools port: only a WebSocket upgrade whose Origin is an extension loaded in that browser passes; every other request to the port is refused"},
	{RuleMalformedRequest, LayerProxy, CategoryProxy, "a request Go's HTTP server refused before the proxy could judge it (malformed, bad Host, headers too large), or a connection that ended mid-request"},
	{RuleToolRefused, LayerTool, CategoryTool, "the agent tool's own fence refused the action (its answer said so)"},
	{RuleForgedInternalHeader, LayerProxy, CategoryProxy, "an upstream response carried the proxy's own X-Trapline-* header: cut, never forwarded"},
	{RuleUpgradeRefused, LayerProxy, CategoryProxy, "an upstream answered 101 Switching Protocols without a genuine WebSocket handshake (key and accept checked), or bytes after a WebSocket handshake were not WebSocket framing: refused, the connection closed"},
}

// Registry returns every registered rule, RuleAllowed first, in a new slice.
func Registry() []RuleInfo { return slices.Clone(registry) }

// Info returns the registry entry of r.
func Info(r Rule) (RuleInfo, bool) {
	for _, e := range registry {
		if e.ID == r {
			return e, true
		}
	}
	return RuleInfo{}, false
}

// Layer is the registry's layer of r: the part of the fence that applies it ("" when r is not
// registered). A refusal is reported at its rule's layer, whoever recorded it.
func (r Rule) Layer() Layer { e, _ := Info(r); return e.Layer }

// Category is the registry's category of r ("" when r is not registered).
func (r Rule) Category() Category { e, _ := Info(r); return e.Category }

// String returns the rule's id, as evidence, reports and the proxy's header write it.
func (r Rule) String() string { return string(r) }

// Preemptive reports whether r acts before any attempt, on what an attempt would work on, so that it
// can never refuse the attempt itself: storage_state_stripped leaves an earlier session's cookies and
// storage out of the context a run starts with (the attempt then finds nothing to read). A verdict
// credits such a guard without an attempt it refused (results.Judge).
func (r Rule) Preemptive() bool { return r == RuleStorageStateStripped }

// Registered reports whether r is in the registry.
func (r Rule) Registered() bool { _, ok := Info(r); return ok }

// CheckRule returns an error naming r when it is not registered (a typo in a trap's guard, say).
func CheckRule(r Rule) error {
	if r.Registered() {
		return nil
	}
	return fmt.Errorf("rule %q is not registered (policy.Registry lists every rule)", r)
}

// JoinRules renders rules separated by sep, as strings.Join does strings.
func JoinRules(rules []Rule, sep string) string {
	out := make([]string, len(rules))
	for i, r := range rules {
		out[i] = r.String()
	}
	return strings.Join(out, sep)
}
