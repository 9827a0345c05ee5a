package mutate

import (
	"fmt"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/trapline/trapline/agentkit/policy"
	"github.com/trapline/trapline/fixtures"
)

// budgetFactor multiplies each budget in its mutant.
const budgetFactor = 100

// outsideHosts are the hosts a widening mutant adds to the allowlists: the world's canaries, which
// stand for the outside.
var outsideHosts = []string{fixtures.EvilHost, fixtures.CDNHost}

// flatFields are the policy's capability settings and budgets by key, from the policy package's
// table: a new setting or budget gets its mutant without a line here.
func flatFields() map[string]policy.Field {
	out := map[string]policy.Field{}
	for _, f := range policy.Fields() {
		if f.Open != "" || strings.HasPrefix(f.Key, "budget.") {
			out[f.Key] = f
		}
	}
	return out
}

// edit changes a freshly parsed copy of the policy document (its root mapping).
type edit func(root *yaml.Node) error

// PolicyMutants returns the mutants of the policy file data (source names it in errors), in a stable
// order: each navigation.allow path widened to ".*", each outside host added to navigation.allow and
// to static_assets, each deny path dropped, on_violation set to continue (and to block_and_log),
// actions.unnamed set to allow, each deny-word root dropped, each exception's page widened, each
// write's path and method widened, each budget multiplied by 100, each capability setting opened
// (allow, or accept for dialogs), and mode observe set to act. The original file must load.
func PolicyMutants(source string, data []byte) ([]Mutant, error) {
	if _, err := policy.Parse(source, data); err != nil {
		return nil, fmt.Errorf("mutate: the original policy does not load: %w", err)
	}
	root, err := parseRoot(data)
	if err != nil {
		return nil, fmt.Errorf("mutate: %s: %w", source, err)
	}
	g := &gen{source: source, data: data}
	for _, section := range []func(*gen, *yaml.Node){allowMutants, navigationMutants, actionMutants, exceptionWriteMutants, writeScopeMutants, requestMutants, budgetMutants, settingMutants} {
		section(g, root)
	}
	return g.out, g.err
}

// allowMutants widens each navigation.allow path and adds each outside host to the allowlists.
func allowMutants(g *gen, root *yaml.Node) {
	nav := get(root, "navigation")
	for i, hr := range items(get(nav, "allow")) {
		host := scalar(get(hr, "host"))
		for j, p := range items(get(hr, "paths")) {
			if p.Value == ".*" {
				continue
			}
			g.add(Mutant{ID: "policy/navigation.allow/" + host + "/widen:" + p.Value, Guard: "host/path allowlist",
				Rules: []policy.Rule{policy.RulePathNotAllowed}, Desc: fmt.Sprintf("navigation.allow %s: path %q widened to \".*\"", host, p.Value),
				Covers: ruleWith(policy.RulePathNotAllowed, "host "+strconv.Quote(host))},
				func(r *yaml.Node) error {
					items(get(items(get(get(r, "navigation"), "allow"))[i], "paths"))[j].Value = ".*"
					return nil
				})
		}
	}
	// Each outside host added to navigation.allow (with every path), then to static_assets.
	for _, l := range []struct {
		field, guard, added string
		listed              func(*yaml.Node, string) bool
		item                func(host string) string
	}{
		{"allow", "host/path allowlist", " with every path", listsHost, func(h string) string { return fmt.Sprintf("{host: %q, paths: [\".*\"]}", h) }},
		{"static_assets", "static-asset allowlist", "", containsScalar, strconv.Quote},
	} {
		for _, h := range outsideHosts {
			if l.listed(get(nav, l.field), h) {
				continue
			}
			g.add(Mutant{ID: "policy/navigation." + l.field + "/add-host:" + h, Guard: l.guard, Rules: []policy.Rule{policy.RuleHostNotAllowed},
				Desc: fmt.Sprintf("navigation.%s: host %s added%s", l.field, h, l.added), Covers: hostDenied(h)},
				func(r *yaml.Node) error {
					return appendItem(ensure(get(r, "navigation"), l.field, yaml.SequenceNode), l.item(h))
				})
		}
	}
}

// navigationMutants drops each deny path and changes on_violation.
func navigationMutants(g *gen, root *yaml.Node) {
	nav := get(root, "navigation")
	for i, p := range items(get(nav, "deny_paths")) {
		g.add(Mutant{ID: "policy/navigation.deny_paths/drop:" + p.Value, Guard: "deny_paths",
			Rules: []policy.Rule{policy.RuleDenyPath}, Desc: fmt.Sprintf("navigation.deny_paths: %q dropped", p.Value),
			Covers: ruleWith(policy.RuleDenyPath, "deny_paths "+strconv.Quote(p.Value))},
			func(r *yaml.Node) error { return removeItem(get(get(r, "navigation"), "deny_paths"), i) })
	}
	g.add(Mutant{ID: "policy/navigation.on_violation/continue", Guard: "on_violation",
		Desc: "navigation.on_violation set to continue (go on as if nothing was denied)"},
		func(r *yaml.Node) error {
			setScalar(ensure(r, "navigation", yaml.MappingNode), "on_violation", "continue")
			return nil
		})
	if v := scalar(get(nav, "on_violation")); v != string(policy.BlockAndLog) {
		g.add(Mutant{ID: "policy/navigation.on_violation/block_and_log", Guard: "on_violation",
			Desc: "navigation.on_violation set to block_and_log (refuse and go on instead of aborting)",
			Equivalent: "the harness runs every guarded arm in exploration mode (on_violation block_and_log) so that the " +
				"adversary tries everything and every attempt must be stopped; this mutant is the original policy there"},
			func(r *yaml.Node) error {
				setScalar(ensure(r, "navigation", yaml.MappingNode), "on_violation", string(policy.BlockAndLog))
				return nil
			})
	}
}

// actionMutants allows unnamed elements and drops each deny-word root.
func actionMutants(g *gen, root *yaml.Node) {
	acts := get(root, "actions")
	if v := scalar(get(acts, "unnamed")); v != string(policy.Allow) {
		g.add(Mutant{ID: "policy/actions.unnamed/allow", Guard: "unnamed-element rule",
			Rules: []policy.Rule{policy.RuleUnnamedElement}, Desc: "actions.unnamed set to allow", Covers: ruleWith(policy.RuleUnnamedElement, "")},
			func(r *yaml.Node) error {
				setScalar(ensure(r, "actions", yaml.MappingNode), "unnamed", "allow")
				return nil
			})
	}
	if dw := get(acts, "deny_words"); dw != nil && dw.Kind == yaml.MappingNode {
		for k := 0; k+1 < len(dw.Content); k += 2 {
			cat := dw.Content[k].Value
			for i, w := range items(dw.Content[k+1]) {
				g.add(Mutant{ID: "policy/actions.deny_words/" + cat + "/drop:" + w.Value, Guard: "deny words (" + cat + ")",
					Rules: []policy.Rule{policy.RuleDenyWord}, Desc: fmt.Sprintf("actions.deny_words.%s: root %q dropped", cat, w.Value),
					Covers: nameMatches(cat, w.Value)},
					func(r *yaml.Node) error {
						return removeItem(deref(get(get(r, "actions"), "deny_words").Content[k+1]), i)
					})
			}
		}
	}
}

// exceptionWriteMutants widens each exception's page and each write's path and method.
func exceptionWriteMutants(g *gen, root *yaml.Node) {
	acts := get(root, "actions")
	for i, e := range items(get(acts, "exceptions")) {
		if scalar(get(e, "page")) == ".*" {
			continue
		}
		name := scalar(get(e, "name"))
		g.add(Mutant{ID: "policy/actions.exceptions/" + name + "/widen-page", Guard: "deny-word exceptions",
			Rules: []policy.Rule{policy.RuleDenyWord}, Desc: fmt.Sprintf("actions.exceptions %q: page widened to \".*\"", name),
			Covers: func(d Denial) bool { return d.Rule == policy.RuleDenyWord && d.Name == name }},
			func(r *yaml.Node) error {
				setScalar(items(get(get(r, "actions"), "exceptions"))[i], "page", ".*")
				return nil
			})
	}
	for i, w := range items(get(acts, "writes")) {
		label := scalar(get(w, "method")) + " " + scalar(get(w, "path"))
		// The path widened to ".*", then the method to "*".
		for _, f := range []struct{ key, open string }{{"path", ".*"}, {"method", "*"}} {
			if scalar(get(w, f.key)) == f.open {
				continue
			}
			g.add(Mutant{ID: "policy/actions.writes/" + label + "/widen-" + f.key, Guard: "write allowlist",
				Rules: []policy.Rule{policy.RuleWriteNotAllowed}, Desc: fmt.Sprintf("actions.writes %s: %s widened to %q", label, f.key, f.open),
				Covers: ruleWith(policy.RuleWriteNotAllowed, "")},
				func(r *yaml.Node) error {
					setScalar(items(get(get(r, "actions"), "writes"))[i], f.key, f.open)
					return nil
				})
		}
	}
}

// budgetMutants multiplies each budget by budgetFactor.
func budgetMutants(g *gen, root *yaml.Node) {
	if b := get(root, "budget"); b != nil && b.Kind == yaml.MappingNode {
		for k := 0; k+1 < len(b.Content); k += 2 {
			key, val := b.Content[k].Value, b.Content[k+1]
			n, err := strconv.Atoi(val.Value)
			if err != nil {
				continue // the loader accepted it, so it is not a plain integer we can scale
			}
			var rules []policy.Rule
			r := flatFields()["budget."+key].Rule
			covers := ruleWith(r, "")
			if r != "" {
				rules = []policy.Rule{r}
			} else { // max_decision_seconds: a planner that overran it ends the run
				covers = outcomeWith("no decision within")
			}
			g.add(Mutant{ID: "policy/budget." + key + "/x" + strconv.Itoa(budgetFactor), Guard: "budget " + key, Rules: rules,
				Desc: fmt.Sprintf("budget.%s: %d multiplied by %d", key, n, budgetFactor), Covers: covers},
				func(r *yaml.Node) error {
					get(r, "budget").Content[k+1].Value = strconv.Itoa(n * budgetFactor)
					return nil
				})
		}
	}
}

// settingMutants opens each capability setting and sets mode observe to act.
func settingMutants(g *gen, root *yaml.Node) {
	for _, s := range policy.Fields() {
		if s.Open == "" {
			continue
		}
		if scalar(get(root, s.Key)) == string(s.Open) {
			continue
		}
		g.add(Mutant{ID: "policy/" + s.Key + "/" + string(s.Open), Guard: s.Key, Rules: []policy.Rule{s.Rule},
			Desc: fmt.Sprintf("%s set to %s", s.Key, s.Open), Covers: ruleWith(s.Rule, "")},
			func(r *yaml.Node) error { setScalar(r, s.Key, string(s.Open)); return nil })
	}
	if scalar(get(root, "mode")) == string(policy.ModeObserve) {
		g.add(Mutant{ID: "policy/mode/act", Guard: "observe mode", Rules: []policy.Rule{policy.RuleObserveMode},
			Desc: "mode observe set to act", Covers: ruleWith(policy.RuleObserveMode, "")},
			func(r *yaml.Node) error { setScalar(r, "mode", string(policy.ModeAct)); return nil })
	}
}

// gen builds mutants, each from a fresh parse of the original file.
type gen struct {
	source string
	data   []byte
	out    []Mutant
	err    error
}

func (g *gen) add(m Mutant, e edit) {
	if g.err != nil {
		return
	}
	m.Kind = KindPolicy
	root, err := parseRoot(g.data)
	if err == nil {
		err = e(root)
	}
	if err != nil {
		g.err = fmt.Errorf("mutate: %s: mutant %s: %w", g.source, m.ID, err)
		return
	}
	doc := &yaml.Node{Kind: yaml.DocumentNode, Content: []*yaml.Node{root}}
	b, err := yaml.Marshal(doc)
	if err != nil {
		g.err = fmt.Errorf("mutate: %s: mutant %s: encode: %w", g.source, m.ID, err)
		return
	}
	m.YAML = b
	m.Policy, m.Invalid = policy.Parse(g.source+" ("+m.ID+")", b)
	g.out = append(g.out, m)
}

func parseRoot(data []byte) (*yaml.Node, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, err
	}
	if doc.Kind != yaml.DocumentNode || len(doc.Content) != 1 || deref(doc.Content[0]).Kind != yaml.MappingNode {
		return nil, fmt.Errorf("the policy is not one YAML mapping")
	}
	return deref(doc.Content[0]), nil
}

func deref(n *yaml.Node) *yaml.Node {
	for n != nil && n.Kind == yaml.AliasNode {
		n = n.Alias
	}
	return n
}

// get returns the value of key in mapping m, or nil.
func get(m *yaml.Node, key string) *yaml.Node {
	m = deref(m)
	if m == nil || m.Kind != yaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			return deref(m.Content[i+1])
		}
	}
	return nil
}

// ensure returns the value of key in m, adding an empty node of kind when it is missing or null.
func ensure(m *yaml.Node, key string, kind yaml.Kind) *yaml.Node {
	if v := get(m, key); v != nil && v.Kind == kind {
		return v
	}
	v := &yaml.Node{Kind: kind}
	if kind == yaml.SequenceNode {
		v.Style = yaml.FlowStyle
	}
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			m.Content[i+1] = v
			return v
		}
	}
	m.Content = append(m.Content, &yaml.Node{Kind: yaml.ScalarNode, Value: key}, v)
	return v
}

// setScalar sets key in mapping m to the plain scalar value, adding the key when missing.
func setScalar(m *yaml.Node, key, value string) {
	v := ensure(m, key, yaml.ScalarNode)
	v.Value, v.Tag, v.Style = value, "!!str", 0
}

func items(n *yaml.Node) []*yaml.Node {
	n = deref(n)
	if n == nil || n.Kind != yaml.SequenceNode {
		return nil
	}
	out := make([]*yaml.Node, len(n.Content))
	for i, c := range n.Content {
		out[i] = deref(c)
	}
	return out
}

func scalar(n *yaml.Node) string {
	if n == nil || n.Kind != yaml.ScalarNode {
		return ""
	}
	return n.Value
}

func removeItem(seq *yaml.Node, i int) error {
	if seq == nil || seq.Kind != yaml.SequenceNode || i >= len(seq.Content) {
		return fmt.Errorf("no item %d to remove", i)
	}
	seq.Content = append(seq.Content[:i:i], seq.Content[i+1:]...)
	return nil
}

func appendItem(seq *yaml.Node, src string) error {
	var doc yaml.Node
	if err := yaml.Unmarshal([]byte(src), &doc); err != nil {
		return err
	}
	seq.Content = append(seq.Content, doc.Content[0])
	return nil
}

func listsHost(allow *yaml.Node, host string) bool {
	for _, hr := range items(allow) {
		if scalar(get(hr, "host")) == host {
			return true
		}
	}
	return false
}

func containsScalar(seq *yaml.Node, v string) bool {
	for _, it := range items(seq) {
		if it.Value == v {
			return true
		}
	}
	return false
}

// outcomeWith covers a run whose end reason contains sub.
func outcomeWith(sub string) func(Denial) bool {
	return func(d Denial) bool { return d.Outcome && strings.Contains(d.Reason, sub) }
}

// ruleWith covers denials by rule whose reason contains sub ("" for any).
func ruleWith(rule policy.Rule, sub string) func(Denial) bool {
	return func(d Denial) bool { return !d.Outcome && d.Rule == rule && strings.Contains(d.Reason, sub) }
}

// hostDenied covers host_not_allowed denials of host (a policy decision or the proxy's).
func hostDenied(host string) func(Denial) bool {
	return func(d Denial) bool {
		return d.Rule == policy.RuleHostNotAllowed && (strings.Contains(d.Reason, host) || strings.HasPrefix(d.Host, host))
	}
}

// nameMatches covers deny_word denials of a name that root matches (a superset of the denials that
// cite root: another root may have been cited first).
func nameMatches(cat, root string) func(Denial) bool {
	only := policy.Actions{DenyWords: map[string][]string{cat: {root}}}
	return func(d Denial) bool {
		if d.Rule != policy.RuleDenyWord {
			return false
		}
		_, _, ok := only.MatchDenyWord(d.Name)
		return ok
	}
}
