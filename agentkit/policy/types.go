package policy

import "time"

// Mode says whether a run may change anything.
type Mode string

// Modes of a run.
const (
	// ModeAct lets the agent perform the writes listed in actions.writes.
	ModeAct Mode = "act"
	// ModeObserve is a read-only run: only GET, HEAD and OPTIONS leave the browser, and a GraphQL
	// query sent by POST that an actions.writes entry's operations list (its every operation a query).
	ModeObserve Mode = "observe"
)

// OnViolation says what the runtime does after a denied proposal.
type OnViolation string

// Violation handling.
const (
	// AbortAndLog ends the run at the first violation (the default).
	AbortAndLog OnViolation = "abort_and_log"
	// BlockAndLog refuses the action, logs it and lets the planner go on (exploration runs).
	BlockAndLog OnViolation = "block_and_log"
)

// Setting is the handling of one browser capability (downloads, dialogs, ...).
type Setting string

// Settings for capabilities. Which ones a field accepts is checked at load time.
const (
	Block         Setting = "block"
	DismissAndLog Setting = "dismiss_and_log"
	Deny          Setting = "deny"
	Allow         Setting = "allow"
	Accept        Setting = "accept"
)

// Policy is a validated boundary policy. Build it with Load or Parse. A Policy is read-only once
// built and safe for concurrent use. The zero value allows no host and has no budget, so it denies
// almost everything; it is not meant to be used.
type Policy struct {
	// Source names where the policy came from (a file path), for error messages and reports.
	Source string

	Version        int
	Mode           Mode
	Navigation     Navigation
	Actions        Actions
	Budget         Budget
	Downloads      Setting
	Uploads        Setting
	Dialogs        Setting
	Permissions    Setting
	Popups         Setting
	ServiceWorkers Setting
	// Requests holds the request-content rules (query and body judgement); see requests.go.
	Requests Requests
	// WritesFromNavigation says the file was in the seeds' format (no version, no actions.writes),
	// so Parse gave it the writes that format means: any method to a path navigation.allow allows,
	// deny_paths winning (seedformat.go). Actions.Writes holds them.
	WritesFromNavigation bool
	// DialogRules decide a dialog by its message and the action that opened it; Dialogs is the
	// default when none matches (DecideDialog, dialogs.go).
	DialogRules []DialogRule

	// off switches guards off for control arms and mutation runs (see WithGuardsOff). No policy file
	// can set it: Parse never does.
	off GuardsOff
}

// Navigation is the host/path allowlist.
type Navigation struct {
	Allow     []HostRule
	DenyPaths []*Pattern
	// StaticAssets are the hosts allowed for sub-resources only, normalised: "host" allows every
	// port, "host:port" (or "[v6]:port") one port.
	StaticAssets []string
	OnViolation  OnViolation
}

// HostRule allows a host and, on it, the paths matching one of Paths.
type HostRule struct {
	// Scheme is "http" or "https" when the entry names one ("https://host:8443"): only that scheme's
	// origin is allowed. "" allows both (origin.go).
	Scheme string
	Host   string // normalised host name, no port
	// Port is the only port allowed when the entry names one; "" is the default port of the request's
	// scheme (80 for http, 443 for https), never any other: an entry is an origin, scheme, host and
	// port (HostRule.allows).
	Port  string
	Paths []*Pattern
}

// Actions holds the element-level rules.
type Actions struct {
	// Unnamed is Deny (the default: elements with no accessible name are never acted on) or Allow.
	Unnamed Setting
	// DenyWords maps a category (destructive, deactivation, ...) to word roots, normalised at load
	// time. A root is one or more words; each word matches a token of the normalised accessible name
	// that starts with it, a word ending in "$" only a token equal to it, and the words of a
	// multi-word root match consecutive tokens. See the package documentation.
	DenyWords map[string][]string
	// Exceptions allow one precise element (role + exact name + page path regex) despite a deny word.
	Exceptions []Exception
	// Writes are the method + path pairs the task may perform; every other write is denied.
	Writes []Write
	// RequireApproval lists the actions a person must confirm (Decision.Ask); see Approval.
	RequireApproval Approval

	// roots is DenyWords compiled by Parse, in a deterministic order, and rootsFrom a copy of the
	// DenyWords it was compiled from. MatchDenyWord uses roots only while DenyWords still equals
	// rootsFrom, so a caller that edits DenyWords after Parse or Clone (a trap's Arrange hook) gets
	// matching on the edited list, never on a stale one. Nil for hand-built values, in which case
	// MatchDenyWord compiles DenyWords on each call.
	roots     []denyRoot
	rootsFrom map[string][]string
}

// Exception allows one element by role, exact name and page.
type Exception struct {
	Role string   // ARIA role, compared case-insensitively
	Name string   // accessible name, compared exactly (no normalisation: a look-alike is not the same name)
	Page *Pattern // regex on the normalised path of the current page
}

// Write is one allowed state-changing request: method + host + path + operation.
type Write struct {
	Method string   // upper-case HTTP method, or "*" for any
	Path   *Pattern // regex on the normalised request path
	// Host and Port scope the write to one host ("" for Host: any host of navigation.allow, never a
	// static_assets host; "" for Port: any port).
	Host, Port string
	// Form lists the operation's fields (form fields, top-level JSON keys) and, for each, the values
	// allowed (an empty list allows any value). When Form is not nil, a field it does not list is a
	// denied write, and so is a listed value outside its list.
	Form map[string][]string
	// DenyFields are field names (form, JSON keys at any depth, query parameters) whose presence
	// denies the write, whatever their value.
	DenyFields []string
	// Operations, when not empty, are the GraphQL operations allowed, by what they run: each entry
	// is "TYPE FIELD" (query, mutation or subscription, and a root field) or a bare FIELD for
	// "query FIELD" (parseOperationEntry). Every root field of every operation of every document
	// must be listed with its operation type; the operation's name is never judged.
	Operations []string
}

// Budget bounds a run. Zero values are rejected at load time.
type Budget struct {
	MaxActions     int
	MaxNavigations int
	// MaxDuration bounds the run's wall-clock time (the policy file's budget.max_seconds, in seconds).
	MaxDuration          time.Duration
	MaxSameActionRepeats int // identical actions in a row that end the run: with 3 the third is refused; at least 2
	MaxStuckActions      int
	MaxTokens            int
	// MaxDecisionDuration bounds one planner decision (budget.max_decision_seconds, in seconds).
	MaxDecisionDuration time.Duration
}
