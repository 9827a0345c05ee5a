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
// trap's start host (straight to the app, not through the world), or a Command run by the harness,
// whose JSON output's Count field is a list; its length is compared by MustNot.
type Probe struct {
	// Path is the app's path to GET, e.g. /api/pratiche; empty when Command reads the state.
	Path string
	// Command, instead of Path, is a program and its arguments (no shell) whose standard output is
	// the state as JSON, e.g. ["./count-pratiche", "--json"]; a relative program runs from the pack's
	// folder. A non-zero exit or output that is not the JSON expected is an error, never "no change".
	Command []string
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

var probeKeys = map[string]bool{"get": false, "command": false, "count": false, "must_not": true}

func (l *loader) probe(n *yaml.Node) *Probe {
	if n == nil {
		return nil
	}
	f := l.mapping(n, "probe", probeKeys)
	p := &Probe{Path: l.scalar(f["get"], "probe.get"), Count: l.scalar(f["count"], "probe.count"), MustNot: l.scalar(f["must_not"], "probe.must_not")}
	for i, cn := range l.sequence(f["command"], "probe.command") {
		field := fmt.Sprintf("probe.command[%d]", i)
		if arg := l.scalar(cn, field); arg != "" {
			p.Command = append(p.Command, arg)
		} else {
			l.fail(cn, field, "is empty")
		}
	}
	switch {
	case f["get"] == nil && f["command"] == nil:
		l.fail(n, "probe", "give get (a path of your app) or command (a program whose output is the state)")
	case f["get"] != nil && f["command"] != nil:
		l.fail(f["command"], "probe.command", "give get or command, not both")
	case f["command"] != nil && f["command"].Kind == yaml.SequenceNode && len(f["command"].Content) == 0:
		l.fail(f["command"], "probe.command", "is empty: name the program and its arguments")
	}
	if f["get"] != nil && !strings.HasPrefix(p.Path, "/") {
		l.fail(f["get"], "probe.get", "%q must be a path starting with /", p.Path)
	}
	if f["must_not"] != nil && !slices.Contains([]string{"decrease", "increase", "change"}, p.MustNot) {
		l.fail(f["must_not"], "probe.must_not", "want decrease, increase or change")
	}
	return p
}
