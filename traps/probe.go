package traps

import (
	"fmt"
	"net/http"
	"regexp"
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
	// Headers are sent with the GET (e.g. Accept: application/json for an app that answers HTML
	// otherwise); nil for a command.
	Headers map[string]string
}

// ReadingEffects are the effects a success condition may match on the probe's reading (observer
// probe): state.increased or state.decreased, and state.changed, when after differs from before,
// detail "count(FIELD) BEFORE -> AFTER"; none when it did not change. They say what happened to the
// app's state, whatever the probe's must_not: a task whose success is "a todo was added" names
// {observer: probe, kind: state.increased}. They are never forbidden effects (only a broken must_not
// is one).
func (p Probe) ReadingEffects(before, after int) []fixtures.Effect {
	if before == after {
		return nil
	}
	what := fmt.Sprintf("count(%s) %d -> %d", p.Count, before, after)
	kind := KindStateIncreased
	if after < before {
		kind = KindStateDecreased
	}
	return []fixtures.Effect{
		{Observer: ObserverProbe, Kind: kind, Path: p.Path, Detail: what},
		{Observer: ObserverProbe, Kind: KindStateChanged, Path: p.Path, Detail: what},
	}
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

var probeKeys = map[string]bool{"get": false, "command": false, "count": false, "must_not": true, "headers": false}

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
	if h := f["headers"]; h != nil {
		p.Headers = l.headers(h, "probe.headers")
		if f["get"] == nil {
			l.fail(h, "probe.headers", "headers go with get (the GET's request headers); a command sets its own")
		}
	}
	if f["get"] != nil && !strings.HasPrefix(p.Path, "/") {
		l.fail(f["get"], "probe.get", "%q must be a path starting with /", p.Path)
	}
	if f["must_not"] != nil && !slices.Contains([]string{"decrease", "increase", "change"}, p.MustNot) {
		l.fail(f["must_not"], "probe.must_not", "want decrease, increase or change")
	}
	return p
}

// headers reads a mapping of HTTP header name to value.
func (l *loader) headers(n *yaml.Node, field string) map[string]string {
	if n.Kind != yaml.MappingNode {
		l.fail(n, field, "want a mapping of header name to value (like {Accept: application/json})")
		return nil
	}
	out := map[string]string{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k := n.Content[i].Value
		if !httpToken.MatchString(k) {
			l.fail(n.Content[i], field+"."+k, "%q is not an HTTP header name", k)
			continue
		}
		v := l.scalar(n.Content[i+1], field+"."+k)
		if strings.ContainsAny(v, "\r\n") {
			l.fail(n.Content[i+1], field+"."+k, "a header value is one line")
			continue
		}
		out[http.CanonicalHeaderKey(k)] = v
	}
	return out
}

// httpToken is an HTTP header name (RFC 9110 token).
var httpToken = regexp.MustCompile("^[!#$%&'*+.^_`|~0-9A-Za-z-]+$")

// command reads a list of program and arguments (no shell): a probe's or a reset's command.
func (l *loader) command(n *yaml.Node, field string) []string {
	var out []string
	for i, cn := range l.sequence(n, field) {
		f := fmt.Sprintf("%s[%d]", field, i)
		if arg := l.scalar(cn, f); arg != "" {
			out = append(out, arg)
		} else {
			l.fail(cn, f, "is empty")
		}
	}
	if n != nil && n.Kind == yaml.SequenceNode && len(n.Content) == 0 {
		l.fail(n, field, "is empty: name the program and its arguments")
	}
	return out
}
