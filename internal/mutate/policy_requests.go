package mutate

import (
	"fmt"
	"strconv"

	"go.yaml.in/yaml/v3"

	"github.com/trapline/trapline/agentkit/policy"
)

// requestMutants weakens what a request may carry (issue 15): each requests.deny_words category
// dropped, outside_url_param and unreadable_bodies set to allow, max_body_bytes multiplied by
// budgetFactor.
func requestMutants(g *gen, root *yaml.Node) {
	reqs := get(root, "requests")
	if reqs == nil || reqs.Kind != yaml.MappingNode {
		return
	}
	for i, c := range items(get(reqs, "deny_words")) {
		cat := c.Value
		g.add(Mutant{ID: "policy/requests.deny_words/drop:" + cat, Guard: "request deny words (" + cat + ")",
			Rules: []policy.Rule{policy.RuleRequestDenyWord}, Desc: fmt.Sprintf("requests.deny_words: category %q dropped", cat),
			Covers: ruleWith(policy.RuleRequestDenyWord, "")},
			func(r *yaml.Node) error { return removeItem(deref(get(get(r, "requests"), "deny_words")), i) })
	}
	for _, s := range []struct {
		key  string
		rule policy.Rule
	}{{"outside_url_param", policy.RuleOutsideURLParam}, {"unreadable_bodies", policy.RuleBodyUnreadable}} {
		if scalar(get(reqs, s.key)) == string(policy.Allow) {
			continue
		}
		g.add(Mutant{ID: "policy/requests." + s.key + "/allow", Guard: "requests." + s.key, Rules: []policy.Rule{s.rule},
			Desc: "requests." + s.key + " set to allow", Covers: ruleWith(s.rule, "")},
			func(r *yaml.Node) error {
				setScalar(ensure(r, "requests", yaml.MappingNode), s.key, "allow")
				return nil
			})
	}
	n := policy.DefaultMaxBodyBytes
	if v := get(reqs, "max_body_bytes"); v != nil {
		var err error
		if n, err = strconv.Atoi(v.Value); err != nil {
			return // the loader accepted it, so it is not a plain integer we can scale
		}
	}
	g.add(Mutant{ID: "policy/requests.max_body_bytes/x" + strconv.Itoa(budgetFactor), Guard: "request body cap",
		Rules: []policy.Rule{policy.RuleBodyTooLarge}, Desc: fmt.Sprintf("requests.max_body_bytes: %d multiplied by %d", n, budgetFactor),
		Covers: ruleWith(policy.RuleBodyTooLarge, "")},
		func(r *yaml.Node) error {
			reqs := ensure(r, "requests", yaml.MappingNode)
			setScalar(reqs, "max_body_bytes", strconv.Itoa(n*budgetFactor))
			get(reqs, "max_body_bytes").Tag = "!!int"
			return nil
		})
}

// writeScopeMutants weakens each write's operation scope (issue 15): its host dropped (the write then
// covers every navigation.allow host), each form field's values opened to any value, each deny_fields
// entry dropped, and its GraphQL operations dropped.
func writeScopeMutants(g *gen, root *yaml.Node) {
	write := func(r *yaml.Node, i int) *yaml.Node { return items(get(get(r, "actions"), "writes"))[i] }
	operation := []policy.Rule{policy.RuleWriteOperation}
	for i, w := range items(get(get(root, "actions"), "writes")) {
		label := scalar(get(w, "method")) + " " + scalar(get(w, "path"))
		id := "policy/actions.writes/" + label + "/"
		if get(w, "host") != nil {
			g.add(Mutant{ID: id + "drop-host", Guard: "write host scope", Rules: []policy.Rule{policy.RuleWriteNotAllowed},
				Desc: fmt.Sprintf("actions.writes %s: host %q dropped", label, scalar(get(w, "host"))),
				Covers: func(d Denial) bool {
					return d.Rule == policy.RuleWriteNotAllowed || d.Rule == policy.RuleWriteOperation
				}},
				func(r *yaml.Node) error { return dropKey(write(r, i), "host") })
		}
		if form := get(w, "form"); form != nil && form.Kind == yaml.MappingNode {
			for k := 0; k+1 < len(form.Content); k += 2 {
				field := form.Content[k].Value
				if len(items(form.Content[k+1])) == 0 {
					continue // already any value
				}
				g.add(Mutant{ID: id + "widen-form:" + field, Guard: "write operation (form values)", Rules: operation,
					Desc:   fmt.Sprintf("actions.writes %s: form field %q takes any value", label, field),
					Covers: ruleWith(policy.RuleWriteOperation, "value outside")},
					func(r *yaml.Node) error {
						get(write(r, i), "form").Content[k+1] = &yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq", Style: yaml.FlowStyle}
						return nil
					})
			}
		}
		for j, f := range items(get(w, "deny_fields")) {
			g.add(Mutant{ID: id + "drop-deny-field:" + f.Value, Guard: "write operation (deny_fields)", Rules: operation,
				Desc:   fmt.Sprintf("actions.writes %s: deny_fields entry %q dropped", label, f.Value),
				Covers: ruleWith(policy.RuleWriteOperation, strconv.Quote(f.Value))},
				func(r *yaml.Node) error { return removeItem(deref(get(write(r, i), "deny_fields")), j) })
		}
		if len(items(get(w, "operations"))) > 0 {
			g.add(Mutant{ID: id + "drop-operations", Guard: "write operation (GraphQL)", Rules: operation,
				Desc: fmt.Sprintf("actions.writes %s: operations dropped", label), Covers: ruleWith(policy.RuleWriteOperation, "GraphQL")},
				func(r *yaml.Node) error { return dropKey(write(r, i), "operations") })
		}
	}
}

// dropKey removes key from the mapping m.
func dropKey(m *yaml.Node, key string) error {
	m = deref(m)
	for k := 0; k+1 < len(m.Content); k += 2 {
		if m.Content[k].Value == key {
			m.Content = append(m.Content[:k], m.Content[k+2:]...)
			return nil
		}
	}
	return fmt.Errorf("no key %q", key)
}
