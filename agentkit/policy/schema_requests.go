package policy

import (
	"math"

	"go.yaml.in/yaml/v3"

	"github.com/trapline/trapline/internal/userfile"
)

// requests decodes the top-level "requests" mapping:
//
//	requests:
//	  deny_words: [destructive, ...]     # actions.deny_words categories, matched on query and body
//	  outside_url_param: deny            # or allow
//	  outside_url_param_paths: ["^/vai$"] # paths where outside URL values are allowed anyway
//	  max_body_bytes: 65536
//	  unreadable_bodies: deny            # or allow (permissive control policy only)
//
// Category names are checked against actions.deny_words after the whole document is read
// (checkRequestCategories), so the two sections may come in any order.
func (d *decoder) requests(n *yaml.Node, field string, r *Requests, cats *[]*yaml.Node) {
	d.mapping(n, field, handlers{
		"deny_words": func(v *yaml.Node, f string) {
			r.DenyWords, _ = list(d, v, f, func(it *yaml.Node, fi string) (string, bool) {
				s, ok := d.nonEmptyStr(it, fi)
				if ok {
					*cats = append(*cats, it)
				}
				return s, ok
			})
		},
		"outside_url_param": func(v *yaml.Node, f string) {
			if s, ok := d.enum(v, f, string(Deny), string(Allow)); ok {
				r.OutsideURLParam = Setting(s)
			}
		},
		"unreadable_bodies": func(v *yaml.Node, f string) {
			if s, ok := d.enum(v, f, string(Deny), string(Allow)); ok {
				r.UnreadableBodies = Setting(s)
			}
		},
		"outside_url_param_paths": func(v *yaml.Node, f string) { r.OutsideURLParamPaths = d.patterns(v, f) },
		"max_body_bytes": func(v *yaml.Node, f string) {
			if x, ok := d.positive(v, f, math.MaxInt32); ok {
				r.MaxBodyBytes = x
			}
		},
	})
}

// checkRequestCategories reports every requests.deny_words entry that names no actions.deny_words
// category: a typo there would silently check nothing.
func (d *decoder) checkRequestCategories(p *Policy, nodes []*yaml.Node) {
	for i, n := range nodes {
		c := p.Requests.DenyWords[i]
		if _, ok := p.Actions.DenyWords[c]; !ok {
			d.Fail(n, userfile.Index("requests.deny_words", i), CodeUnknownValue, "%q is not a category of actions.deny_words", c)
		}
	}
}

// writeExtras are the operation-scoping keys of an actions.writes entry.
func (d *decoder) writeExtras(w *Write, valid *bool) handlers {
	return handlers{
		"host": func(v *yaml.Node, f string) {
			var ok bool
			w.Host, w.Port, ok = d.host(v, f)
			*valid = *valid && ok
		},
		"form": func(v *yaml.Node, f string) {
			w.Form = map[string][]string{}
			fields := handlersForAnyKey(v, func(fv *yaml.Node, ff, name string) {
				if name == "" {
					d.Fail(fv, ff, CodeEmpty, "a form field needs a name")
					*valid = false
				}
				vals, ok := list(d, fv, ff, d.str)
				*valid = *valid && ok
				if vals == nil {
					vals = []string{}
				}
				w.Form[name] = vals
			})
			if d.mapping(v, f, fields) == nil {
				*valid = false
			}
		},
		"deny_fields": func(v *yaml.Node, f string) {
			var ok bool
			w.DenyFields, ok = list(d, v, f, d.nonEmptyStr)
			*valid = *valid && ok
		},
		"operations": func(v *yaml.Node, f string) {
			var ok bool
			w.Operations, ok = list(d, v, f, d.operationEntry)
			*valid = *valid && ok
		},
	}
}

// operationEntry reads one entry of a write's operations (parseOperationEntry's syntax).
func (d *decoder) operationEntry(n *yaml.Node, field string) (string, bool) {
	s, ok := d.nonEmptyStr(n, field)
	if !ok {
		return "", false
	}
	if _, _, good := parseOperationEntry(s); !good {
		d.Fail(n, field, CodeInvalidValue, "%q is not an operation: write \"query FIELD\", \"mutation FIELD\" or \"subscription FIELD\" (a root field of that type), or a bare FIELD for \"query FIELD\"; an operation's name is the client's label and is never judged", s)
		return "", false
	}
	return s, true
}
