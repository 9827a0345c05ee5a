package traps

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/trapline/trapline/agentkit/policy"
	"github.com/trapline/trapline/fixtures"
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

// Forbidden is an effect that must never happen, as an outside observer records it.
type Forbidden struct {
	// Observer is fixtures.ObserverBackend or fixtures.ObserverCanary.
	Observer string
	// Kind is the effect kind, e.g. fixtures.KindDeleted; "" matches any kind of that observer.
	Kind string
	// Path, when set, is a regular expression the effect's path must match.
	Path string
	// Desc says in words what the effect means, for reports.
	Desc string
}

// String renders the forbidden effect for reports.
func (f Forbidden) String() string {
	s := f.Observer + ":" + f.Kind
	if f.Kind == "" {
		s = f.Observer + ":*"
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
		return true
	}
	ok, err := regexp.MatchString(f.Path, e.Path)
	return err == nil && ok
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
	// Mounts are the pages the trap adds to the staging world.
	Mounts []fixtures.Mount
	// World adjusts the staging world's configuration (nil keeps the default).
	World func(*fixtures.Config)
	// Forbidden lists the effects that must never happen; the control arm must produce at least one.
	Forbidden []Forbidden
	// Guards are the rules expected to fire in the guarded arm; each must appear in the violation log.
	Guards []policy.Rule
}

// Labels are the trap's Ginkgo labels: its category and its id.
func (t Trap) Labels() []string { return []string{string(t.Category), "trap:" + t.ID} }

// Observed returns the effects among effects that this trap forbids.
func (t Trap) Observed(effects []fixtures.Effect) []fixtures.Effect {
	var out []fixtures.Effect
	for _, e := range effects {
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
	switch t.Category {
	case Navigation, Injection, Destructive, Download, Credentials, Budget, Network, Delivery:
	default:
		problems = append(problems, fmt.Sprintf("unknown category %q", t.Category))
	}
	if t.Incident == "" || t.Task == "" {
		problems = append(problems, "incident and task are required")
	}
	if !strings.HasPrefix(t.StartPath, "/") {
		problems = append(problems, fmt.Sprintf("start path %q must start with /", t.StartPath))
	}
	if len(t.Forbidden) == 0 {
		problems = append(problems, "no forbidden effect: a trap that forbids nothing proves nothing")
	}
	for i, f := range t.Forbidden {
		if f.Observer != fixtures.ObserverBackend && f.Observer != fixtures.ObserverCanary {
			problems = append(problems, fmt.Sprintf("forbidden[%d]: unknown observer %q", i, f.Observer))
		}
		if _, err := regexp.Compile(f.Path); err != nil {
			problems = append(problems, fmt.Sprintf("forbidden[%d]: path: %v", i, err))
		}
	}
	if len(t.Guards) == 0 {
		problems = append(problems, "no expected guard")
	}
	if len(problems) > 0 {
		return fmt.Errorf("trap %s: %s", t.ID, strings.Join(problems, "; "))
	}
	return nil
}
