package policy

import (
	"fmt"
	"net/url"
	"slices"
	"strings"
)

// graphQLKeys are the top-level keys of a GraphQL-over-HTTP request, implicitly part of a write
// whose entry lists operations.
var graphQLKeys = []string{"query", "operationName", "variables", "extensions"}

// judgeContent rules on what a request carries, once its destination and method are allowed:
// the body cap, a readable body, the operation of a write (writes are the entries that matched
// method, host and path; nil for a read), outside URL parameters and request deny words.
func (p *Policy) judgeContent(r Request, rawQuery string, host, port, path string, writes []Write) Decision {
	lenient := p.Requests.UnreadableBodies == Allow
	var c content
	if r.BodyTruncated || len(r.Body) > p.maxBody() {
		if !lenient {
			return deny(RuleBodyTooLarge, "the request body is longer than requests.max_body_bytes (%d bytes): it is not judged on a prefix", p.maxBody())
		}
	} else if parsed, err := parseBody(r.ContentType, r.Body); err != nil {
		if !lenient {
			return deny(RuleBodyUnreadable, "%s %s%s: the body cannot be judged: %v", methodName(r.Method), hostPort(host, port), path, err)
		}
	} else {
		c = parsed
	}
	query := queryFields(rawQuery)
	all := append(slices.Clone(query), c.fields...)
	if writes != nil {
		var first Decision
		ok := false
		for _, w := range writes {
			d, good := w.checkOperation(all, c)
			if good {
				ok = true
				break
			}
			if first.Rule == "" {
				first = d
			}
		}
		if !ok {
			return first
		}
	} else {
		// A read that names an operation of a write on the same path (?azione=elimina on the status
		// endpoint, a form switched to GET) is judged like that write's deny_fields.
		for _, w := range p.Actions.Writes {
			if w.Path.MatchString(path) && p.writeHost(w, host, port) {
				if name, ok := w.deniedField(query); ok {
					return deny(RuleWriteOperation, "%s %s%s carries %q, a deny_fields entry of the write %s %s", methodName(r.Method), hostPort(host, port), path, name, w.Method, w.Path)
				}
			}
		}
	}
	if d, ok := p.checkContent(content{fields: all, raw: c.raw}, path); !ok {
		return d
	}
	return allowDecision()
}

// checkOperation reports whether the fields (query and body) and the GraphQL operation are the
// operation the write entry allows.
func (w Write) checkOperation(fields []field, c content) (Decision, bool) {
	op := fmt.Sprintf("%s %s", w.Method, w.Path)
	if name, ok := w.deniedField(fields); ok {
		return deny(RuleWriteOperation, "field %q is in deny_fields of the write %s", name, op), false
	}
	if w.Form != nil {
		for _, f := range fields {
			allowed, listed := w.Form[f.Top]
			if !listed && len(w.Operations) > 0 && slices.Contains(graphQLKeys, f.Top) {
				continue
			}
			if !listed {
				return deny(RuleWriteOperation, "field %q is not one of the fields of the write %s", f.Top, op), false
			}
			if len(allowed) == 0 {
				continue
			}
			if !f.Scalar || f.Path != f.Top || !slices.Contains(allowed, f.Value) {
				// the value is not quoted: a field may hold a secret
				return deny(RuleWriteOperation, "field %q has a value outside the values allowed by the write %s", f.Top, op), false
			}
		}
	}
	if len(w.Operations) > 0 {
		if !c.graphQL || c.operation == "" {
			return deny(RuleWriteOperation, "the write %s allows only the GraphQL operations %v and the body names none", op, w.Operations), false
		}
		if !slices.Contains(w.Operations, c.operation) {
			return deny(RuleWriteOperation, "GraphQL operation %q is not one the write %s allows (%v)", c.operation, op, w.Operations), false
		}
	}
	return Decision{}, true
}

// deniedField returns the first field named in DenyFields (case-insensitively, at any depth).
func (w Write) deniedField(fields []field) (string, bool) {
	for _, f := range fields {
		for _, n := range w.DenyFields {
			if strings.EqualFold(f.Name, n) || strings.EqualFold(f.Top, n) {
				return f.Name, true
			}
		}
	}
	return "", false
}

// queryFields splits a raw query into fields. "&" and ";" both separate (lenient backends split on
// either); a pair that does not unescape is kept as written. Nothing here fails: the values are
// judged, not the syntax.
func queryFields(raw string) []field {
	if raw == "" {
		return nil
	}
	var out []field
	for _, pair := range strings.FieldsFunc(raw, func(r rune) bool { return r == '&' || r == ';' }) {
		k, v, _ := strings.Cut(pair, "=")
		if dk, err := url.QueryUnescape(k); err == nil {
			k = dk
		}
		if dv, err := url.QueryUnescape(v); err == nil {
			v = dv
		}
		out = append(out, field{Name: k, Path: k, Top: k, Value: v, Scalar: true, Query: true})
	}
	return out
}

func methodName(m string) string {
	if m == "" {
		return "GET"
	}
	return strings.ToUpper(m)
}
