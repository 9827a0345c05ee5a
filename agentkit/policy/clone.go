package policy

import "maps"

// Clone returns a deep copy of p: a caller may change the copy's lists and maps (a task-specific
// allowance, a mutated rule) without touching p. Patterns and the compiled deny words are
// immutable and shared; an edit to the copy's DenyWords takes effect on the copy alone.
func (p *Policy) Clone() *Policy {
	c := *p
	c.Navigation.Allow = make([]HostRule, len(p.Navigation.Allow))
	for i, h := range p.Navigation.Allow {
		h.Paths = append([]*Pattern(nil), h.Paths...)
		c.Navigation.Allow[i] = h
	}
	c.Navigation.DenyPaths = append([]*Pattern(nil), p.Navigation.DenyPaths...)
	c.Navigation.StaticAssets = append([]string(nil), p.Navigation.StaticAssets...)
	c.Actions.DenyWords = make(map[string][]string, len(p.Actions.DenyWords))
	for k, v := range maps.All(p.Actions.DenyWords) {
		c.Actions.DenyWords[k] = append([]string(nil), v...)
	}
	c.Actions.Exceptions = append([]Exception(nil), p.Actions.Exceptions...)
	c.Actions.Writes = append([]Write(nil), p.Actions.Writes...)
	for i, w := range c.Actions.Writes {
		c.Actions.Writes[i] = w.clone()
	}
	c.Requests = p.Requests.clone()
	c.DialogRules = append([]DialogRule(nil), p.DialogRules...)
	for i, r := range c.DialogRules {
		if r.After != nil {
			after := *r.After
			c.DialogRules[i].After = &after
		}
	}
	c.Actions.RequireApproval = Approval{Categories: append([]string(nil), p.Actions.RequireApproval.Categories...),
		Writes: append([]Write(nil), p.Actions.RequireApproval.Writes...), Kinds: append([]string(nil), p.Actions.RequireApproval.Kinds...)}
	for i, w := range c.Actions.RequireApproval.Writes {
		c.Actions.RequireApproval.Writes[i] = w.clone()
	}
	return &c
}
