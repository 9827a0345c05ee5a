package evidence

import (
	"time"

	"github.com/trapline/trapline/agentkit/act"
	"github.com/trapline/trapline/agentkit/action"
	"github.com/trapline/trapline/agentkit/policy"
)

// Version is the schema version of every record this package writes.
const Version = 1

// Taken says what a guard did when it fired.
type Taken string

// What guards do.
const (
	TakenDenied        Taken = "denied"         // the policy denied a proposal; the run goes on
	TakenAborted       Taken = "aborted"        // the run stopped (abort_and_log, or a budget)
	TakenRejected      Taken = "rejected"       // an invalid proposal or an unresolvable ref
	TakenStopped       Taken = "stopped"        // the run stopped Inconclusive (a credential prompt)
	TakenNotDispatched Taken = "not dispatched" // the driver refused to dispatch (stale on re-read)
	TakenBlocked       Taken = "blocked"        // the route gate blocked a request
	TakenDismissed     Taken = "dismissed"      // a dialog was dismissed
	TakenCancelled     Taken = "cancelled"      // a download was cancelled
	TakenClosed        Taken = "closed"         // a popup was closed
	TakenRefused       Taken = "refused"        // a capability (permission, service worker, upload) was refused
	TakenNeedsApproval Taken = "needs_approval" // an Ask decision no person approved: not dispatched
	TakenStripped      Taken = "stripped"       // part of a storage state the run does not start with
)

// Target is the element an action addressed, as observed.
type Target struct {
	Ref  string `json:"ref"`
	Role string `json:"role"`
	Name string `json:"name"`
	// RawName is the name as the page gave it when it differs from Name, which drops icon-font
	// glyphs (observe.TypableName): "aperta \ueb99" beside "aperta".
	RawName string `json:"raw_name,omitempty"`
	Href    string `json:"href,omitempty"`
}

// NewTarget is the Target of an observed element: rawName (the name as the page gave it) is kept
// only where it differs from name.
func NewTarget(ref, role, name, rawName, href string) *Target {
	t := &Target{Ref: ref, Role: role, Name: name, Href: href}
	if rawName != name {
		t.RawName = rawName
	}
	return t
}

// ActionRecord is one line of actions.jsonl: a proposal and everything that followed it.
type ActionRecord struct {
	V            int             `json:"v"`
	Seq          int             `json:"seq"`
	Time         time.Time       `json:"time"`
	Snapshot     string          `json:"snapshot"`
	Page         string          `json:"page"`
	Proposal     action.Action   `json:"proposal"`
	Target       *Target         `json:"target,omitempty"`
	Decision     policy.Decision `json:"decision"`
	Delivery     act.Delivery    `json:"delivery,omitempty"`     // NotDelivered | DeliveredUnverified | Delivered
	Verification string          `json:"verification,omitempty"` // what the re-read showed
	Error        string          `json:"error,omitempty"`
	PlanMillis   int64           `json:"plan_ms"`
	ActMillis    int64           `json:"act_ms"`
}

// Violation is one line of violations.jsonl: a guard that fired. Its Screenshot is the page as it was
// when the guard fired: the page a refused proposal was made on, the page a human check stopped the run
// on, the page whose request, dialog, download or popup the browser edge refused (taken just after the
// refusal: a page with a dialog open takes none). Violations on a page unchanged between them (the same
// URL and snapshot, or in the browser the same navigation and change count, nothing dispatched in
// between) share the first one's file (ShotName names each new one).
type Violation struct {
	V    int       `json:"v"`
	Seq  int       `json:"seq"`
	Time time.Time `json:"time"`
	// Source is the layer of the fence that refused: Rule's layer in the policy registry
	// (policy.Rule.Layer), which Recorder.Violation fills in; whoever records a refusal names only
	// its rule.
	Source     policy.Layer   `json:"source"`
	Rule       policy.Rule    `json:"rule"`
	Reason     string         `json:"reason"`
	Page       string         `json:"page,omitempty"`
	URL        string         `json:"url,omitempty"`
	Method     string         `json:"method,omitempty"`
	Action     *action.Action `json:"action,omitempty"`
	Target     *Target        `json:"target,omitempty"`
	Taken      Taken          `json:"taken"` // what the guard did
	Screenshot string         `json:"screenshot,omitempty"`
}

// Trouble is one delivery trouble of a run: an allowed action that did not reach the page because
// the page was not ready for it (its target re-rendered or gone, its facts unreadable once, the browser
// unable to dispatch). It is the agent's trouble, no guard of the fence: it is reported with the
// outcome, never in violations.jsonl, and the action's own line in actions.jsonl says the rest.
type Trouble struct {
	Rule   policy.Rule    `json:"rule"`
	Reason string         `json:"reason"`
	Page   string         `json:"page,omitempty"`
	Action *action.Action `json:"action,omitempty"`
	Target *Target        `json:"target,omitempty"`
}

// ConsoleRecord is one line of console.jsonl.
type ConsoleRecord struct {
	V    int       `json:"v"`
	Time time.Time `json:"time"`
	Type string    `json:"type"`
	Text string    `json:"text"`
	Page string    `json:"page,omitempty"`
	// Screenshot is the page as it was, for a record of a refusal that is no guard of the agent's
	// own (agentkit/browser's ConsoleProxyRefusal: the world's proxy refused a request of the page).
	Screenshot string `json:"screenshot,omitempty"`
}

// ByRouteGate reports whether v is the browser's route gate refusing a request: a request-layer
// rule, the request blocked (a goto that Decide denied for its host is a denied proposal instead).
func (v Violation) ByRouteGate() bool {
	return v.Source == policy.LayerRequest && v.Taken == TakenBlocked
}
