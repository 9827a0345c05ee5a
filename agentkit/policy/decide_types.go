package policy

import (
	"net/http"
	"time"

	"github.com/trapline/trapline/agentkit/action"
)

// Rule identifies the rule behind a decision. The set is closed: every Decision carries one of these.
type Rule string

// The rules. RuleAllowed is the only one that allows.
const (
	RuleAllowed          Rule = "allowed"
	RuleInvalidURL       Rule = "invalid_url"
	RuleSchemeNotAllowed Rule = "scheme_not_allowed"
	RuleHostNotAllowed   Rule = "host_not_allowed"
	RulePathNotAllowed   Rule = "path_not_allowed"
	RuleDenyPath         Rule = "deny_path"
	RuleDenyWord         Rule = "deny_word"
	RuleUnnamedElement   Rule = "unnamed_element"
	RuleWriteNotAllowed  Rule = "write_not_allowed"
	RuleObserveMode      Rule = "observe_mode"
	RuleBudgetActions    Rule = "budget_actions"
	RuleBudgetNav        Rule = "budget_navigations"
	RuleBudgetSeconds    Rule = "budget_seconds"
	RuleBudgetRepeats    Rule = "budget_repeats"
	RuleBudgetStuck      Rule = "budget_stuck"
	RuleBudgetTokens     Rule = "budget_tokens"
	RuleUnknownAction    Rule = "unknown_action"
	RuleDialog           Rule = "dialog"
	RuleDownload         Rule = "download"
	RuleUpload           Rule = "upload"
	RulePopup            Rule = "popup"
	RulePermission       Rule = "permission"
	RuleServiceWorker    Rule = "service_worker"
	// RuleWriteOperation: a listed write whose operation (form field, value, JSON key, GraphQL
	// operationName) is not the one allowed, or that carries one of its deny_fields.
	RuleWriteOperation Rule = "write_operation_not_allowed"
	// RuleRequestDenyWord: a query or body value of a request matches a requests.deny_words root.
	RuleRequestDenyWord Rule = "request_deny_word"
	// RuleOutsideURLParam: a query or body value is a URL of a host outside the allowlist.
	RuleOutsideURLParam Rule = "outside_url_param"
	// RuleBodyTooLarge: a request body longer than requests.max_body_bytes (never passed unread).
	RuleBodyTooLarge Rule = "body_too_large"
	// RuleBodyUnreadable: a request body that is malformed or of a content type the rules cannot read.
	RuleBodyUnreadable Rule = "body_unreadable"
	// RuleResponseDownload: a response whose headers (Content-Disposition filename, Content-Type)
	// make it a download the policy blocks, or whose Content-Disposition or Content-Type cannot be
	// read or is ambiguous (repeated, a charset that cannot be decoded).
	RuleResponseDownload Rule = "response_download"
	// RuleGraphQLPersisted: a GraphQL request that names a stored document (a persisted-query hash,
	// a documentId) instead of sending it, under a policy with an operations rule: what it runs
	// cannot be judged.
	RuleGraphQLPersisted Rule = "graphql_persisted_query"
	// RuleAmbiguousRequest: a request that carries one name twice where a backend may read either
	// copy (a JSON key repeated in one object, in any spelling; a name both in the query string and
	// the body; a GraphQL parameter given twice) or a body in a charset the rules do not read.
	RuleAmbiguousRequest Rule = "ambiguous_request"
	// RuleUnseenChannel: the browser-side gate refused, inside the page, a channel ctx.Route cannot
	// see (speculation rules, a beacon or keepalive request sent while the page is left) whose URL
	// the policy itself allows (agentkit/browser/unseen.go).
	RuleUnseenChannel Rule = "unseen_channel"
	RuleLabelMismatch Rule = "label_mismatch" // the visible text says a deny word the accessible name does not (a lying label)
	RuleNeedsApproval Rule = "needs_approval" // ask: a require_approval rule matched; a person must approve (Decision.Ask)
	// The loop's own rules (agentkit applies them, never Decide):
	RuleTargetUnknown        Rule = "target_unknown"         // what the action will do could not be read from the page: not dispatched
	RuleSecretsUnknown       Rule = "secrets_unknown"        // whether the page asks for a secret could not be read: Inconclusive
	RuleIncompleteTarget     Rule = "incomplete_target"      // the target is not in an incomplete snapshot: Unknown, not absent
	RuleStorageStateStripped Rule = "storage_state_stripped" // part of a storage-state file the run does not start with (browser)
)

// Rules returns the rules the policy itself applies (layers decide, request and browser), RuleAllowed
// first, in registry order, in a new slice. Registry lists every rule, the loop's and the proxy's too.
func Rules() []Rule {
	var out []Rule
	for _, e := range registry {
		switch e.Layer {
		case LayerDecide, LayerRequest, LayerBrowser:
			out = append(out, e.ID)
		}
	}
	return out
}

// Action kinds, as policy has always spelled them: each is the action package's Kind, the one
// definition of the closed set (action.Kinds). Any other Input.Kind is denied with RuleUnknownAction.
const (
	KindGoto   = action.Goto
	KindClick  = action.Click
	KindFill   = action.Fill
	KindSelect = action.Select
	KindPress  = action.Press
	KindHover  = action.Hover
	KindScroll = action.Scroll
	KindRead   = action.Read
	KindDone   = action.Done
)

// Decision is the verdict on one proposed action or request.
type Decision struct {
	Allow  bool   `json:"allow"`
	Ask    bool   `json:"ask,omitempty"` // the third decision: not allowed unless a person approves (RuleNeedsApproval)
	Rule   Rule   `json:"rule"`
	Reason string `json:"reason"`
}

// Target is the element an action addresses, as the observation described it.
type Target struct {
	Role  string
	Name  string // accessible name as observed; "" means unnamed
	Href  string // URL for links (absolute, or relative to Input.Page), "" otherwise
	Facts *Facts // what the DOM says the action will do (visible text, option, form, receiver); nil if unread
}

// Usage is what the run has spent so far, measured outside the planner.
type Usage struct {
	Actions           int // actions attempted so far, as the seeds count max_actions: dispatched or refused by the policy
	Navigations       int // navigations so far: the browser's own count (main frame, redirect hops) where known
	Elapsed           time.Duration
	SameActionRepeats int // how many times in a row this exact action was proposed before
	UnchangedActions  int // actions in a row after which the page did not change
	Tokens            int // model tokens spent so far (0 when the planner is not a model)
}

// Input is one proposed action: the planner's proposal resolved against the current observation.
type Input struct {
	Kind   action.Kind // one of action.Kinds()
	Target *Target     // nil for goto, scroll, read, done
	URL    string      // destination of a goto (absolute)
	Page   string      // URL of the current page (absolute)
	Usage  Usage
}

// Request is one network request as the route gate or the proxy sees it.
type Request struct {
	Method     string // HTTP method; "" means GET, as in net/http
	URL        string // absolute
	Navigation bool   // a document request (top-level or frame)
	// ContentType is the request's Content-Type header ("" when it has none).
	ContentType string
	// Body is the request body as read by the caller, at most Requests.MaxBodyBytes bytes of it.
	Body []byte
	// BodyTruncated says the body was longer than the caller read: the request is denied
	// (RuleBodyTooLarge), never judged on a prefix.
	BodyTruncated bool
	// Header holds the request's headers, when the caller has them (nil otherwise). DecideRequest
	// reads the method-override headers (X-HTTP-Method-Override, X-HTTP-Method, X-Method-Override)
	// from it: a request that says it is another method is judged as both; and Content-Encoding: a
	// body sent encoded is RuleAmbiguousRequest.
	Header http.Header
}
