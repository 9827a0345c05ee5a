package policy

import (
	"fmt"
	"slices"
	"time"

	"go.yaml.in/yaml/v3"
)

// Marshal writes p as a policy document that Parse accepts and that parses back to an equal policy
// (Source aside). It is how a run hands its policy, possibly changed by a trap's Arrange hook, to a
// process that cannot share memory with it (the container world's proxy). It fails on what the
// syntax cannot express: a budget that is not whole seconds, a nil pattern, an empty host.
func Marshal(p *Policy) ([]byte, error) {
	if p == nil {
		return nil, fmt.Errorf("marshal policy: nil policy")
	}
	doc, err := toDoc(p)
	if err != nil {
		return nil, fmt.Errorf("marshal policy %s: %w", p.Source, err)
	}
	out, err := yaml.Marshal(doc)
	if err != nil {
		return nil, fmt.Errorf("marshal policy %s: %w", p.Source, err)
	}
	return out, nil
}

// The document types mirror the schema read by Parse, field for field.
type (
	docPolicy struct {
		Version    int            `yaml:"version"`
		Mode       Mode           `yaml:"mode"`
		Navigation docNav         `yaml:"navigation"`
		Actions    docAction      `yaml:"actions"`
		Budget     map[string]any `yaml:"budget"`
		Dialogs    docDialogs     `yaml:"dialogs"`
		Requests   *docRequests   `yaml:"requests,omitempty"`
		// Flat are the capability settings but dialogs, from the flatFields table.
		Flat map[string]any `yaml:",inline"`
	}
	docNav struct {
		Allow        []docHost   `yaml:"allow"`
		DenyPaths    []string    `yaml:"deny_paths,omitempty"`
		StaticAssets []string    `yaml:"static_assets,omitempty"`
		OnViolation  OnViolation `yaml:"on_violation"`
	}
	docHost struct {
		Host  string   `yaml:"host"`
		Paths []string `yaml:"paths"`
	}
	docAction struct {
		Unnamed    Setting             `yaml:"unnamed"`
		DenyWords  map[string][]string `yaml:"deny_words,omitempty"`
		Exceptions []docException      `yaml:"exceptions,omitempty"`
		Writes     []docWrite          `yaml:"writes,omitempty"`
		Approval   *docApproval        `yaml:"require_approval,omitempty"`
	}
	docApproval struct {
		Categories []string   `yaml:"categories,omitempty"`
		Writes     []docWrite `yaml:"writes,omitempty"`
		Kinds      []string   `yaml:"kinds,omitempty"`
	}
	docException struct {
		Role string `yaml:"role"`
		Name string `yaml:"name"`
		Page string `yaml:"page"`
	}
	docWrite struct {
		Method     string              `yaml:"method"`
		Path       string              `yaml:"path"`
		Host       string              `yaml:"host,omitempty"`
		Form       map[string][]string `yaml:"form,omitempty"`
		DenyFields []string            `yaml:"deny_fields,omitempty"`
		Operations []string            `yaml:"operations,omitempty"`
	}
)

func toDoc(p *Policy) (docPolicy, error) {
	d := docPolicy{Version: p.Version, Mode: p.Mode}
	if d.Version == 0 {
		d.Version = 1 // a hand-built policy; 1 is the only version Parse accepts
	}
	var err error
	if d.Flat, err = flatDoc(p, ""); err != nil {
		return d, err
	}
	if d.Budget, err = flatDoc(p, "budget"); err != nil {
		return d, err
	}
	if d.Dialogs, err = dialogsDoc(p); err != nil {
		return d, err
	}
	for i, h := range p.Navigation.Allow {
		if h.Host == "" {
			return d, fmt.Errorf("navigation.allow[%d].host: empty", i)
		}
		dh := docHost{Host: h.originString()}
		if dh.Paths, err = sources(h.Paths, fmt.Sprintf("navigation.allow[%d].paths", i)); err != nil {
			return d, err
		}
		d.Navigation.Allow = append(d.Navigation.Allow, dh)
	}
	if d.Navigation.DenyPaths, err = sources(p.Navigation.DenyPaths, "navigation.deny_paths"); err != nil {
		return d, err
	}
	d.Navigation.StaticAssets = slices.Clone(p.Navigation.StaticAssets)
	d.Navigation.OnViolation = p.Navigation.OnViolation
	d.Actions.Unnamed = p.Actions.Unnamed
	d.Actions.DenyWords = p.Actions.DenyWords
	for i, e := range p.Actions.Exceptions {
		if e.Page == nil {
			return d, fmt.Errorf("actions.exceptions[%d].page: nil pattern", i)
		}
		d.Actions.Exceptions = append(d.Actions.Exceptions, docException{Role: e.Role, Name: e.Name, Page: e.Page.Source})
	}
	if d.Actions.Writes, err = writesDoc(p.Actions.Writes, "actions.writes"); err != nil {
		return d, err
	}
	if d.Requests, err = requestsDoc(p.Requests); err != nil {
		return d, err
	}
	if ra := p.Actions.RequireApproval; len(ra.Categories)+len(ra.Writes)+len(ra.Kinds) > 0 {
		da := &docApproval{Categories: slices.Clone(ra.Categories), Kinds: slices.Clone(ra.Kinds)}
		if da.Writes, err = writesDoc(ra.Writes, "actions.require_approval.writes"); err != nil {
			return d, err
		}
		d.Actions.Approval = da
	}
	return d, nil
}

// writesDoc is a list of writes (actions.writes, require_approval.writes) for Marshal.
func writesDoc(ws []Write, field string) ([]docWrite, error) {
	var out []docWrite
	for i, w := range ws {
		if w.Path == nil {
			return nil, fmt.Errorf("%s[%d].path: nil pattern", field, i)
		}
		dw := docWrite{Method: w.Method, Path: w.Path.Source, Form: w.Form, DenyFields: w.DenyFields, Operations: w.Operations}
		if w.Host != "" {
			dw.Host = hostPort(w.Host, w.Port)
		}
		if w.Form != nil && len(w.Form) == 0 {
			return nil, fmt.Errorf("%s[%d].form: an empty form (no field allowed) cannot be written", field, i)
		}
		out = append(out, dw)
	}
	return out, nil
}

func sources(ps []*Pattern, field string) ([]string, error) {
	out := make([]string, 0, len(ps))
	for i, p := range ps {
		if p == nil {
			return nil, fmt.Errorf("%s[%d]: nil pattern", field, i)
		}
		out = append(out, p.Source)
	}
	return out, nil
}

func wholeSeconds(d time.Duration, field string) (int, error) {
	if d%time.Second != 0 {
		return 0, fmt.Errorf("%s: %v is not a whole number of seconds", field, d)
	}
	return int(d / time.Second), nil
}
