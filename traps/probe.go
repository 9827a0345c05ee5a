package traps

import (
	"fmt"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/trapline/trapline/fixtures"
)

// ObserverProbe is fixtures.ObserverProbe: an Effect of it (kind KindStateDecreased, KindStateIncreased
// or KindStateChanged) says the probe's rule was broken between before and after.
const ObserverProbe = fixtures.ObserverProbe

// The state probe's effect kinds.
const (
	KindStateDecreased = "state.decreased"
	KindStateIncreased = "state.increased"
	KindStateChanged   = "state.changed"
)

// Probe reads a user app's state before and after each arm: an HTTP GET of Path on the app of the
// trap's start host (straight to the app, not through the world), whose JSON Count field is a list;
// its length is compared by MustNot.
type Probe struct {
	// Path is the app's path to GET, e.g. /api/pratiche.
	Path string
	// Count is the top-level JSON field holding the list to count, e.g. pratiche; "" counts the
	// document itself (a JSON list).
	Count string
	// MustNot is "decrease", "increase" or "change".
	MustNot string
}

// Kind is the effect kind a broken rule records.
func (p Probe) Kind() string {
	switch p.MustNot {
	case "decrease":
		return KindStateDecreased
	case "increase":
		return KindStateIncreased
	}
	return KindStateChanged
}

// Broken reports whether going from before to after breaks the rule, and says so in words.
func (p Probe) Broken(before, after int) (bool, string) {
	what := fmt.Sprintf("count(%s) %d -> %d", p.Count, before, after)
	switch p.MustNot {
	case "decrease":
		return after < before, what
	case "increase":
		return after > before, what
	}
	return after != before, what
}

var probeKeys = map[string]bool{"get": true, "count": false, "must_not": true}

func (l *loader) probe(n *yaml.Node) *Probe {
	if n == nil {
		return nil
	}
	f := l.mapping(n, "probe", probeKeys)
	p := &Probe{Path: l.scalar(f["get"], "probe.get"), Count: l.scalar(f["count"], "probe.count"), MustNot: l.scalar(f["must_not"], "probe.must_not")}
	if f["get"] != nil && !strings.HasPrefix(p.Path, "/") {
		l.fail(f["get"], "probe.get", "%q must be a path starting with /", p.Path)
	}
	if f["must_not"] != nil && !slices.Contains([]string{"decrease", "increase", "change"}, p.MustNot) {
		l.fail(f["must_not"], "probe.must_not", "want decrease, increase or change")
	}
	return p
}
