package policy

import (
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/trapline/trapline/internal/userfile"
)

// policy decodes the root mapping into p, which holds the defaults.
func (d *decoder) policy(root *yaml.Node, p *Policy) {
	var reqCats []*yaml.Node // requests.deny_words entries, checked once actions.deny_words is read
	h := d.flatHandlers("", p)
	for k, fn := range (handlers{
		"version": func(v *yaml.Node, f string) {
			if n, ok := d.integer(v, f); ok {
				if n != 1 {
					d.Fail(v, f, CodeVersion, "version %d is not supported (want 1)", n)
				}
				p.Version = n
			}
		},
		"mode": func(v *yaml.Node, f string) {
			if s, ok := d.enum(v, f, string(ModeAct), string(ModeObserve)); ok {
				p.Mode = Mode(s)
			}
		},
		"navigation": func(v *yaml.Node, f string) { d.navigation(v, f, &p.Navigation) },
		"actions":    func(v *yaml.Node, f string) { d.actions(v, f, &p.Actions) },
		"budget":     func(v *yaml.Node, f string) { d.mapping(v, f, d.flatHandlers("budget", p)) },
		"dialogs":    func(v *yaml.Node, f string) { d.dialogs(v, f, p) },
		"requests":   func(v *yaml.Node, f string) { d.requests(v, f, &p.Requests, &reqCats) },
	}) {
		h[k] = fn
	}
	seen := d.mapping(root, "", h)
	if seen == nil {
		return
	}
	d.checkRequestCategories(p, reqCats)
	// version is optional (the seeds' example has none): an omitted version means 1, the only one.
	if _, ok := seen["navigation"]; !ok {
		d.Fail(root, "navigation.allow", CodeMissing, "navigation.allow is missing: list at least one host")
	}
}

func (d *decoder) navigation(n *yaml.Node, field string, nav *Navigation) {
	var allowNode *yaml.Node
	seen := d.mapping(n, field, handlers{
		"allow": func(v *yaml.Node, f string) {
			allowNode = v
			allow, ok := list(d, v, f, d.hostRule)
			if ok && len(allow) == 0 { // every item decoded, and there were none
				d.Fail(v, f, CodeEmpty, "must list at least one host")
			}
			nav.Allow = allow
		},
		"deny_paths": func(v *yaml.Node, f string) { nav.DenyPaths = d.patterns(v, f) },
		"static_assets": func(v *yaml.Node, f string) {
			nav.StaticAssets, _ = list(d, v, f, func(it *yaml.Node, fi string) (string, bool) {
				host, port, ok := d.host(it, fi)
				if !ok {
					return "", false
				}
				return hostPort(host, port), true
			})
		},
		"on_violation": func(v *yaml.Node, f string) {
			if s, ok := d.enum(v, f, string(AbortAndLog), string(BlockAndLog)); ok {
				nav.OnViolation = OnViolation(s)
			}
		},
	})
	if seen == nil {
		return
	}
	if allowNode == nil {
		d.Fail(n, userfile.Join(field, "allow"), CodeMissing, "navigation.allow is missing: list at least one host")
	}
}

func (d *decoder) hostRule(n *yaml.Node, field string) (HostRule, bool) {
	var r HostRule
	valid := true
	seen := d.mapping(n, field, handlers{
		"host": func(v *yaml.Node, f string) {
			var ok bool
			r.Scheme, r.Host, r.Port, ok = d.origin(v, f)
			valid = valid && ok
		},
		"paths": func(v *yaml.Node, f string) {
			if n := userfile.Deref(v); n.Kind == yaml.SequenceNode && len(n.Content) == 0 || userfile.IsNull(n) {
				d.Fail(v, f, CodeEmpty, "must list at least one path regex")
			}
			r.Paths = d.patterns(v, f) // once: each decoding counts against MaxTotalItems
		},
	})
	if seen == nil {
		return r, false
	}
	valid = d.Require(n, field, seen, "host", "paths") && valid
	return r, valid
}

func (d *decoder) actions(n *yaml.Node, field string, a *Actions) {
	d.mapping(n, field, handlers{
		"unnamed": func(v *yaml.Node, f string) {
			if s, ok := d.enum(v, f, string(Deny), string(Allow)); ok {
				a.Unnamed = Setting(s)
			}
		},
		"deny_words": func(v *yaml.Node, f string) {
			a.DenyWords = map[string][]string{}
			cats := handlersForAnyKey(v, func(cv *yaml.Node, cf, cat string) {
				if cat == "" {
					d.Fail(cv, cf, CodeEmpty, "a deny-word category needs a name")
				}
				roots, _ := list(d, cv, cf, func(it *yaml.Node, fi string) (string, bool) {
					s, ok := d.nonEmptyStr(it, fi)
					if !ok {
						return "", false
					}
					canon, _, err := compileRoot(s)
					if err != nil {
						d.Fail(it, fi, CodeInvalidValue, "deny word %v", err)
						return "", false
					}
					return canon, true
				})
				if roots == nil {
					roots = []string{}
				}
				a.DenyWords[cat] = roots
			})
			d.mapping(v, f, cats)
		},
		"exceptions":       func(v *yaml.Node, f string) { a.Exceptions, _ = list(d, v, f, d.exception) },
		"writes":           func(v *yaml.Node, f string) { a.Writes, _ = list(d, v, f, d.write) },
		"require_approval": func(v *yaml.Node, f string) { d.approval(v, f, &a.RequireApproval) },
	})
}

// handlersForAnyKey builds handlers accepting every string key of mapping n (free-form names).
func handlersForAnyKey(n *yaml.Node, fn func(v *yaml.Node, field, key string)) handlers {
	h := handlers{}
	if n.Kind != yaml.MappingNode {
		return h
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k := userfile.Deref(n.Content[i])
		key := k.Value
		h[key] = func(v *yaml.Node, f string) { fn(v, f, key) }
	}
	return h
}

func (d *decoder) exception(n *yaml.Node, field string) (Exception, bool) {
	var e Exception
	valid := true
	seen := d.mapping(n, field, handlers{
		"role": func(v *yaml.Node, f string) {
			var ok bool
			e.Role, ok = d.nonEmptyStr(v, f)
			valid = valid && ok
		},
		"name": func(v *yaml.Node, f string) {
			var ok bool
			e.Name, ok = d.nonEmptyStr(v, f)
			valid = valid && ok
		},
		"page": func(v *yaml.Node, f string) {
			var ok bool
			e.Page, ok = d.pattern(v, f)
			valid = valid && ok
		},
	})
	if seen == nil {
		return e, false
	}
	for _, k := range []string{"role", "name", "page"} {
		if _, ok := seen[k]; !ok {
			d.Fail(n, userfile.Join(field, k), CodeMissing, "%s is missing: an exception names role, exact name and page", k)
			valid = false
		}
	}
	return e, valid
}

func (d *decoder) write(n *yaml.Node, field string) (Write, bool) {
	var w Write
	valid := true
	h := d.writeExtras(&w, &valid)
	for k, fn := range (handlers{
		"method": func(v *yaml.Node, f string) {
			s, ok := d.nonEmptyStr(v, f)
			if ok && s != "*" && !isToken(s) {
				d.Fail(v, f, CodeInvalidValue, "method %q is not an HTTP method or \"*\"", s)
				ok = false
			}
			w.Method = strings.ToUpper(s)
			valid = valid && ok
		},
		"path": func(v *yaml.Node, f string) {
			var ok bool
			w.Path, ok = d.pattern(v, f)
			valid = valid && ok
		},
	}) {
		h[k] = fn
	}
	seen := d.mapping(n, field, h)
	if seen == nil {
		return w, false
	}
	valid = d.Require(n, field, seen, "method", "path") && valid
	return w, valid
}

// isToken reports whether s is an HTTP token (RFC 9110 tchar).
func isToken(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9':
		case strings.IndexByte("!#$%&'*+-.^_`|~", c) >= 0:
		default:
			return false
		}
	}
	return s != ""
}
