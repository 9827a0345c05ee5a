package traps

import (
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/trapline/trapline/agentkit"
	"github.com/trapline/trapline/agentkit/credentials"
	"github.com/trapline/trapline/agentkit/planner"
	"github.com/trapline/trapline/agentkit/planner/scripted"
	"github.com/trapline/trapline/agentkit/policy"
	"github.com/trapline/trapline/fixtures"
	"github.com/trapline/trapline/results"
)

// Category groups traps by the kind of failure; it is also the trap's Ginkgo label.
type Category string

// Categories.
const (
	Navigation  Category = "navigation"
	Injection   Category = "injection"
	Destructive Category = "destructive"
	Download    Category = "download"
	Credentials Category = "credentials"
	Budget      Category = "budget"
	Network     Category = "network"
	Delivery    Category = "delivery"
)

// Categories lists every category, in the catalog's order: the one list (pack loading, Validate and
// `trapline traps new --category` read it).
func Categories() []Category {
	return []Category{Navigation, Injection, Destructive, Download, Credentials, Budget, Network, Delivery}
}

// ObserverDisk is fixtures.ObserverDisk: a file in the run's download folder is an Effect with this
// observer and kind KindFileSaved, recorded by the harness after the run.
const ObserverDisk = fixtures.ObserverDisk

// KindFileSaved is a file found in the download folder after a run.
const KindFileSaved = "file.saved"

// Setup is what one arm of a trap runs: the harness fills it with defaults (the arm's policy, a copy
// the trap may change; the adversary planner; every guard on) and calls the trap's Arrange hook.
type Setup struct {
	// Policy is the arm's policy (a copy; change it freely).
	Policy *policy.Policy
	// Planner proposes the actions.
	Planner planner.Planner
	// Secrets are redacted from every artifact.
	Secrets []string
	// Password is the test account's password that a naive agent under test is handed (a black-box
	// agent gets it as TRAPLINE_PASSWORD), as one with the password in its prompt would be. The
	// harness adds it to Secrets.
	Password string
	// Off is the set of guards switched off (control arms, defense-in-depth specs and mutation runs
	// only); the harness passes it down as it is to the policy, the loop, the session and the world.
	Off policy.GuardsOff
	// Login, when set, runs the deterministic login tool before the agent starts; its password is
	// added to Secrets.
	Login *credentials.Login
	// StorageState is a Playwright storage-state file the arm's context starts from (the test account's
	// pre-authenticated session); "" starts with none. Its values are added to Secrets; the file is
	// never copied into the evidence.
	StorageState string
	// StorageStateJSON, when set, is the storage state itself: the harness writes it to a file outside
	// the evidence folder for the session and removes it at once. It wins over StorageState.
	StorageStateJSON []byte
	// KeepStorageOrigins loads the storage state's local storage too (control arms only): an earlier
	// session's page state reaches the run.
	KeepStorageOrigins bool
	// StartHost, when set, is the host the arm starts on instead of the trap's: one of its world's
	// portal aliases (fixtures.Config.PortalAliases), for a policy that names the portal so (the
	// seeds' example policy, traps/scenario). Any other host is an error.
	StartHost string
	// Approver answers the policy's Ask decisions; nil refuses them (the CI default).
	Approver agentkit.Approver
	// Driver, when set, is a driver of the trap's own that needs the browser's page (see PageDriver):
	// a session hook, the world's hand on the page that a trap keeps to push a change at the moment its
	// scenario needs one (stale-ref re-renders the page while its planner is deciding), as a server push
	// would, and never acts for the agent; or an agent that replaces the reference agent, a naive agent
	// under test that drives the page itself (by coordinates, as a screenshot agent would), judged by the
	// outside observers only. A driver that is also a planner.Planner proposes the arm's actions.
	Driver PageDriver
}

// Forbidden is an effect that must never happen, as an outside observer records it.
type Forbidden struct {
	// Observer is one of fixtures.Observers().
	Observer fixtures.Observer
	// Kind is the effect kind, e.g. fixtures.KindDeleted; "" matches any kind of that observer.
	Kind string
	// Path, when set, is a regular expression the effect's path must match.
	Path string
	// Desc says in words what the effect means, for reports.
	Desc string
	// Detail, when set, is a regular expression the effect's detail must match (for the upstream
	// observer: "status N | query: ... | body: ...").
	Detail string
}

// String renders the forbidden effect for reports.
func (f Forbidden) String() string {
	s := string(f.Observer) + ":" + f.Kind
	if f.Kind == "" {
		s = string(f.Observer) + ":*"
	}
	if f.Path != "" {
		s += " " + f.Path
	}
	return s
}

// Matches reports whether e is this forbidden effect.
func (f Forbidden) Matches(e fixtures.Effect) bool {
	if e.Observer != f.Observer || (f.Kind != "" && e.Kind != f.Kind) {
		return false
	}
	if f.Path == "" {
		return f.Detail == "" || matches(f.Detail, e.Detail)
	}
	ok, err := regexp.MatchString(f.Path, e.Path)
	if err != nil || !ok {
		return false
	}
	return f.Detail == "" || matches(f.Detail, e.Detail)
}

// Trap is one entry of the catalog.
type Trap struct {
	// ID is a short kebab-case name, unique in the catalog.
	ID string
	// Category is the kind of failure, used as the Ginkgo label.
	Category Category
	// Incident is the real failure this trap models, in one or two sentences.
	Incident string
	// Task is what the agent is asked to do.
	Task string
	// StartPath is the portal path the agent starts on.
	StartPath string
	// StartHost, when set, is the host of the start page instead of the portal: a user's own staging
	// app (fixtures.Upstream).
	StartHost string
	// Mounts are the pages the trap adds to the staging world.
	Mounts []fixtures.Mount
	// World adjusts the staging world's configuration (nil keeps the default).
	World func(*fixtures.Config)
	// Forbidden lists the effects that must never happen; the control arm must produce at least one.
	Forbidden []Forbidden
	// Guards are the rules expected to fire in the guarded arm; each must appear in the violation log
	// or the proxy's decision log.
	Guards []policy.Rule
	// Arrange adjusts an arm's setup (planner, policy, unsafe switches); nil keeps the defaults. For
	// an agent under test the harness keeps only its policy and world changes: the agent is never
	// replaced.
	Arrange func(arm results.Arm, s *Setup)
	// Driver, when set, says why the trap's Arrange brings its own driver (a planner, an agent or a
	// session hook) for the adversary's arms; an agent under test runs itself against the same page.
	Driver string
	// TwinOf, set on a benign twin (Twins), names the trap whose page shape it copies without the
	// bait: the task must be completed and the fence must refuse nothing. A twin forbids nothing.
	TwinOf string
	// Runaway, set on a budget trap, ties its forbidden runaway to the arm's fence budget (see
	// Runaway); nil for every other trap.
	Runaway *Runaway
	// Success is the task's success condition, checked from outside (utility beside safety): every
	// entry must hold. Empty means the trap measures no task, and NoSuccess says why.
	Success []Success
	// NoSuccess says why a trap has no success condition (Success empty): its run is then left out of
	// the completed-under-policy rate, never counted as a task not done. Every catalog trap has one or
	// the other (TestEveryCatalogTrapMeasuresItsTaskOrSaysWhyNot); the built-in traps' reasons are
	// in success_reasons.go.
	NoSuccess string
	// PolicyPatch is a policy fragment per arm (YAML) that the harness merges onto the arm's policy
	// after Arrange (ApplyPolicyPatch); a pack's policy_patch.
	PolicyPatch map[results.Arm]string
	// Naive is what the naive example external agent must meet on this trap; nil leaves it to the
	// external specs' own table. Only the project's external specs check it, on the catalog's traps;
	// in a user's pack it is informational: trapline run never checks it (any agent may be the one
	// under test), and says so where it runs a black-box agent on a trap that has it.
	Naive *NaiveExpectation
	// Probe, when set, reads the user's app's state before and after each arm (StartHost's upstream);
	// a broken rule is an Effect of ObserverProbe.
	Probe *Probe
	// Reset is a command (program and arguments, no shell) the harness runs before every arm of the
	// trap, so that no arm sees the state another left (a pack's reset:; trapline run --reset-cmd
	// replaces it). A relative program runs from the pack's folder. A reset that fails ends the arm
	// broken with its reason. Nil: no reset.
	Reset []string
	// Pack is the trap's serialisable source when it was loaded from a trap pack (nil for a Go trap): a
	// world in another process rebuilds the trap's mounts from it.
	Pack *PackSource
	// Diligent is the task done right, by role and name and never the bait: the steps of the
	// reference diligent planner (DiligentPlanner), which measures the policy's over-blocking. Empty
	// means the trap has no diligent script yet.
	Diligent []scripted.Step
	// Attack is the trap's own attack script (a pack's attack:): the steps, by role and name, that fire
	// the bait where the adversary would not (an option chosen, a key pressed, a row hovered). When set,
	// the adversary's arms (control, guarded) run it instead of the adversary (AttackPlanner); empty
	// leaves them to the adversary.
	Attack []scripted.Step
	// Login is the deterministic login every arm of the trap starts with (a pack's login:), before
	// the agent: its password is named by PasswordEnv and read when the arm runs
	// (credentials.Login.Resolve); `trapline run --login FILE` replaces it. Nil: no login.
	Login *credentials.Login
}

// NaiveExpectation says whether the naive example external agent (examples/external-agent) must be
// caught by a trap, and why.
type NaiveExpectation struct {
	// Caught: the agent must cause a forbidden effect or a canary hit; false, it must come out clean.
	Caught bool
	// Why says which of its behaviours makes it so.
	Why string
}

// Labels are the trap's Ginkgo labels: its category and its id.
func (t Trap) Labels() []string { return []string{string(t.Category), "trap:" + t.ID} }

// Observed returns the effects among effects that this trap forbids, and in every trap a request that
// reached the world around its proxy (fixtures.KindFenceBypassed): the fence was walked around.
func (t Trap) Observed(effects []fixtures.Effect) []fixtures.Effect {
	var out []fixtures.Effect
	for _, e := range effects {
		if e.Kind == fixtures.KindFenceBypassed {
			out = append(out, e)
			continue
		}
		for _, f := range t.Forbidden {
			if f.Matches(e) {
				out = append(out, e)
				break
			}
		}
	}
	return out
}

// Validate checks that the trap is complete; the catalog test runs it on every trap.
func (t Trap) Validate() error {
	var problems []string
	if !regexp.MustCompile(`^[a-z0-9]+(-[a-z0-9]+)*$`).MatchString(t.ID) {
		problems = append(problems, fmt.Sprintf("id %q is not kebab-case", t.ID))
	}
	if !slices.Contains(Categories(), t.Category) {
		problems = append(problems, fmt.Sprintf("unknown category %q", t.Category))
	}
	for _, f := range []struct{ name, v string }{{"incident", t.Incident}, {"task", t.Task}} {
		switch v := strings.TrimSpace(f.v); {
		case v == "":
			problems = append(problems, f.name+" is required")
		case strings.HasPrefix(v, "TODO") && HasTODO(v):
			problems = append(problems, fmt.Sprintf("%s %q is the scaffold's placeholder: write it", f.name, f.v))
		}
	}
	if !strings.HasPrefix(t.StartPath, "/") {
		problems = append(problems, fmt.Sprintf("start path %q must start with /", t.StartPath))
	}
	if len(t.Forbidden) == 0 && t.TwinOf == "" {
		problems = append(problems, "no forbidden effect: a trap that forbids nothing proves nothing")
	}
	for i, f := range t.Forbidden {
		if !slices.Contains(fixtures.Observers(), f.Observer) {
			problems = append(problems, fmt.Sprintf("forbidden[%d]: unknown observer %q", i, f.Observer))
		}
		if _, err := regexp.Compile(f.Path); err != nil {
			problems = append(problems, fmt.Sprintf("forbidden[%d]: path: %v", i, err))
		}
	}
	if len(t.Guards) == 0 && t.TwinOf == "" {
		problems = append(problems, "no expected guard")
	}
	for i, g := range t.Guards {
		if err := policy.CheckRule(g); err != nil {
			problems = append(problems, fmt.Sprintf("guards[%d]: %v", i, err))
		}
	}
	problems = append(problems, t.successProblems()...)
	problems = append(problems, t.runawayProblems()...)
	problems = append(problems, t.twinProblems()...)
	if len(problems) > 0 {
		return fmt.Errorf("trap %s: %s", t.ID, strings.Join(problems, "; "))
	}
	return nil
}

// caught is the expectation of a trap the naive example external agent must fall into; why names the
// behaviour of the agent that makes it so.
func caught(why string) *NaiveExpectation { return &NaiveExpectation{Caught: true, Why: why} }

// held is the expectation of a trap the naive example external agent must come out of clean; why
// names the behaviour it lacks.
func held(why string) *NaiveExpectation { return &NaiveExpectation{Caught: false, Why: why} }
