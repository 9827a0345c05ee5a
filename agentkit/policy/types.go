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
	Source string `policy:"-"`

	Version        int        `policy:"version"`
	Mode           Mode       `policy:"mode"`
	Navigation     Navigation `policy:"navigation"`
	Actions        Actions    `policy:"actions"`
	Budget         Budget     `policy:"budget"`
	Downloads      Setting    `policy:"downloads"`
	Uploads        Setting    `policy:"uploads"`
	Dialogs        Setting    `policy:"dialogs"`
	Permissions    Setting    `policy:"permissions"`
	Popups         Setting    `policy:"popups"`
	ServiceWorkers Setting    `policy:"service_workers"`
	// Requests holds the request-content rules (query and body judgement); see requests.go.
	Requests Requests `policy:"requests"`
	// WritesFromNavigation says the file was in the seeds' format (no version, no actions.writes),
	// so Parse gave it the writes that format means: any method to a path navigation.allow allows,
	// deny_paths winning (seedformat.go). Actions.Writes holds them.
	WritesFromNavigation bool `policy:"-"`
	// DialogRules decide a dialog by its message and the action that opened it; Dialogs is the
	// default when none matches (DecideDialog, dialogs.go).
	DialogRules []DialogRule `policy:"dialogs.rules"`

	// off switches guards off for control arms and mutation runs (see WithGuardsOff). No policy file
	// can set it: Parse never does.
	off GuardsOff
}

// Navigation is the host/path allowlist.
type Navigation struct {
	Allow     []HostRule `policy:"allow"`
	DenyPaths []*Pattern `policy:"deny_paths"`
	// StaticAssets are the hosts allowed for sub-resources only, normalised: "host" allows every
	// port, "host:port" (or "[v6]:port") one port.
	StaticAssets []string    `policy:"static_assets"`
	OnViolation  OnViolation `policy:"on_violation"`
}

// HostRule allows a host and, on it, the paths matching one of Paths.
type HostRule struct {
	// Scheme is "http" or "https" when the entry names one ("https://host:8443"): only that scheme's
	// origin is allowed. "" allows both (origin.go).
	Scheme string `policy:"host"`
	Host   string `policy:"host"` // normalised host name, no port
	// Port is the only port allowed when the entry names one; "" is the default port of the request's
	// scheme (80 for http, 443 for https), never any other: an entry is an origin, scheme, host and
	// port (HostRule.allows).
	Port  string     `policy:"host"`
	Paths []*Pattern `policy:"paths"`
}

// Actions holds the element-level rules.
type Actions struct {
	// Unnamed is Deny (the default: elements with no accessible name are never acted on) or Allow.
	Unnamed Setting `policy:"unnamed"`
	// DenyWords maps a category (destructive, deactivation, ...) to word roots, normalised at load
	// time. A root is one or more words; each word matches a token of the normalised accessible name
	// that starts with it, a word ending in "$" only a token equal to it, and the words of a
	// multi-word root match consecutive tokens. See the package documentation.
	DenyWords map[string][]string `policy:"deny_words"`
	// Exceptions allow one precise element (role + exact name + page path regex) despite a deny word.
	Exceptions []Exception `policy:"exceptions"`
	// Writes are the method + path pairs the task may perform; every other write is denied.
	Writes []Write `policy:"writes"`
	// RequireApproval lists the actions a person must confirm (Decision.Ask); see Approval.
	RequireApproval Approval `policy:"require_approval"`

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
	Role string   `policy:"role"` // ARIA role, compared case-insensitively
	Name string   `policy:"name"` // accessible name, compared exactly (no normalisation: a look-alike is not the same name)
	Page *Pattern `policy:"page"` // regex on the normalised path of the current page
}

// Write is one allowed state-changing request: method + host + path + operation.
type Write struct {
	Method string   `policy:"method"` // upper-case HTTP method, or "*" for any
	Path   *Pattern `policy:"path"`   // regex on the normalised request path
	// Host and Port scope the write to one host ("" for Host: any host of navigation.allow, never a
	// static_assets host; "" for Port: any port).
	Host string `policy:"host"`
	Port string `policy:"host"`
	// Form lists the operation's fields (form fields, top-level JSON keys) and, for each, the values
	// allowed (an empty list allows any value). When Form is not nil, a field it does not list is a
	// denied write, and so is a listed value outside its list.
	Form map[string][]string `policy:"form"`
	// DenyFields are field names (form, JSON keys at any depth, query parameters) whose presence
	// denies the write, whatever their value.
	DenyFields []string `policy:"deny_fields"`
	// Operations, when not empty, are the GraphQL operations allowed, by what they run: each entry
	// is "TYPE FIELD" (query, mutation or subscription, and a root field) or a bare FIELD for
	// "query FIELD" (parseOperationEntry). Every root field of every operation of every document
	// must be listed with its operation type; the operation's name is never judged.
	Operations []string `policy:"operations"`
}

// Budget bounds a run. Zero values are rejected at load time.
type Budget struct {
	MaxActions     int `policy:"max_actions"`
	MaxNavigations int `policy:"max_navigations"`
	// MaxDuration bounds the run's wall-clock time (the policy file's budget.max_seconds, in seconds).
	MaxDuration          time.Duration `policy:"max_seconds"`
	MaxSameActionRepeats int           `policy:"max_same_action_repeats"` // identical actions in a row that end the run: with 3 the third is refused; at least 2
	MaxStuckActions      int           `policy:"max_stuck_actions"`
	MaxTokens            int           `policy:"max_tokens"`
	// MaxDecisionDuration bounds one planner decision (budget.max_decision_seconds, in seconds).
	MaxDecisionDuration time.Duration `policy:"max_decision_seconds"`
}

// Field is one field of the policy file, as the `policy` tags of the Policy type name it. Fields
// lists them all; the flat ones (capability settings and budgets) carry here everything the
// decoder, Marshal, Summary and the mutant generator need, so a new setting or budget is a struct
// field with its tag plus one row of flatFields below.
type Field struct {
	// Key is the field's path in the file: "downloads", "budget.max_actions", "actions.writes.form".
	Key string
	// Rule is the rule that denies what the field guards ("" when none does, or for a structured field).
	Rule Rule
	// Allowed are the values a capability setting accepts, the restrictive default first, and Open
	// the one that switches its guard off (a mutant sets it). Both are empty for every other field.
	Allowed []Setting
	Open    Setting

	label   string                       // how Summary names it (a budget's printf verb and words)
	setting func(*Policy) *Setting       // a capability setting's value
	count   func(*Budget) *int           // a budget counted in units
	seconds func(*Budget) *time.Duration // a budget in whole seconds
	least   int                          // a count's smallest valid value (1 when 0)
	def     int                          // a budget's default, in its unit
	custom  bool                         // decoded and marshalled by hand (dialogs: a setting or a mapping)
}

// flatFields is the table of the policy's capability settings and budgets, in the order Summary
// prints them and the mutant generator opens them.
var flatFields = []Field{
	{Key: "downloads", Rule: RuleDownload, Allowed: []Setting{Block, Allow}, Open: Allow, label: "downloads",
		setting: func(p *Policy) *Setting { return &p.Downloads }},
	{Key: "uploads", Rule: RuleUpload, Allowed: []Setting{Block, Allow}, Open: Allow, label: "uploads",
		setting: func(p *Policy) *Setting { return &p.Uploads }},
	{Key: "dialogs", Rule: RuleDialog, Allowed: []Setting{DismissAndLog, Accept, Ask}, Open: Accept, label: "dialogs", custom: true,
		setting: func(p *Policy) *Setting { return &p.Dialogs }},
	{Key: "permissions", Rule: RulePermission, Allowed: []Setting{Deny, Allow}, Open: Allow, label: "permissions",
		setting: func(p *Policy) *Setting { return &p.Permissions }},
	{Key: "popups", Rule: RulePopup, Allowed: []Setting{Block, Allow}, Open: Allow, label: "popups",
		setting: func(p *Policy) *Setting { return &p.Popups }},
	{Key: "service_workers", Rule: RuleServiceWorker, Allowed: []Setting{Block, Allow}, Open: Allow, label: "service workers",
		setting: func(p *Policy) *Setting { return &p.ServiceWorkers }},
	{Key: "budget.max_actions", def: 50, Rule: RuleBudgetActions, label: "%d actions", count: func(b *Budget) *int { return &b.MaxActions }},
	{Key: "budget.max_navigations", def: 30, Rule: RuleBudgetNav, label: "%d navigations", count: func(b *Budget) *int { return &b.MaxNavigations }},
	{Key: "budget.max_seconds", def: 120, Rule: RuleBudgetSeconds, label: "%s", seconds: func(b *Budget) *time.Duration { return &b.MaxDuration }},
	// The max_same_action_repeats-th identical action in a row is refused, so 1 would refuse every action.
	{Key: "budget.max_same_action_repeats", def: 3, Rule: RuleBudgetRepeats, label: "%d same-action repeats", least: 2,
		count: func(b *Budget) *int { return &b.MaxSameActionRepeats }},
	{Key: "budget.max_stuck_actions", def: 6, Rule: RuleBudgetStuck, label: "%d stuck actions", count: func(b *Budget) *int { return &b.MaxStuckActions }},
	{Key: "budget.max_tokens", def: 200000, Rule: RuleBudgetTokens, label: "%d tokens", count: func(b *Budget) *int { return &b.MaxTokens }},
	// A planner that overruns max_decision_seconds ends the run: no rule denies an action for it.
	{Key: "budget.max_decision_seconds", def: 30, label: "%s per decision", seconds: func(b *Budget) *time.Duration { return &b.MaxDecisionDuration }},
}
