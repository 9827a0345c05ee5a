package policy

import (
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strings"
)

// graphQLKeys are the top-level keys of a GraphQL-over-HTTP request, implicitly part of a write
// whose entry lists operations.
var graphQLKeys = []string{"query", "operationName", "variables", "extensions"}

// judgeContent rules on what a request carries, once its destination and method are allowed:
// the body cap, a readable body, and one reading of it (RuleAmbiguousRequest: a repeated JSON key,
// a name in both query and body, a GraphQL parameter twice, an encoded body); then, for the request's method and every method it says it is
// (override headers, a "_method" field), the operation of a write (writes are the entries that
// matched method, host and path; nil for a read) or, for a read, that it holds no GraphQL mutation;
// persisted GraphQL queries under a policy with an operations rule; outside URL parameters and
// request deny words.
func (p *Policy) judgeContent(r Request, rawQuery string, host, port, path string, judged []methodWrites) Decision {
	lenient := p.Requests.UnreadableBodies == Allow
	var c content
	if r.BodyTruncated || len(r.Body) > p.maxBody() {
		if !lenient {
			return deny(RuleBodyTooLarge, "the request body is longer than requests.max_body_bytes (%d bytes): it is not judged on a prefix", p.maxBody())
		}
	} else if parsed, err := parseEncodedBody(r); err != nil {
		if !lenient {
			return deny(bodyRule(err), "%s %s%s: the body cannot be judged: %v", methodName(r.Method), hostPort(host, port), path, err)
		}
	} else {
		c = parsed
	}
	query := queryFields(rawQuery)
	g, isGQL, err := graphQLOfQuery(query)
	if err == nil {
		err = ambiguousNames(query, c)
	}
	if err != nil && !lenient {
		return deny(RuleAmbiguousRequest, "%s %s%s: %v", methodName(r.Method), hostPort(host, port), path, err)
	}
	all := append(slices.Clone(query), c.fields...)
	gql := slices.Clone(c.gql)
	if isGQL {
		gql = append(gql, g)
	} else if len(gql) == 1 && gql[0].operation == "" {
		// an application/graphql body takes its operationName from the URL
		for _, f := range query {
			if f.Name == "operationName" {
				gql[0].operation = f.Value
			}
		}
	}
	if p.hasOperationsRule() {
		for _, g := range gql {
			if g.persisted && !g.hasDoc {
				return deny(RuleGraphQLPersisted, "%s %s%s names a stored GraphQL document instead of sending it: what it runs cannot be judged", methodName(r.Method), hostPort(host, port), path)
			}
		}
	}
	for _, o := range fieldOverrides(all, r.Method, overridesOf(judged)) {
		w, d := p.checkMethod(o.method, host, port, path)
		if !d.Allow {
			return overridden(d, o)
		}
		judged = append(judged, methodWrites{method: o.method, writes: w, override: &o})
	}
	for _, mw := range judged {
		d := p.judgeOperation(mw, host, port, path, query, all, gql)
		if d.Allow {
			continue
		}
		if mw.override != nil {
			return overridden(d, *mw.override)
		}
		return d
	}
	if d, ok := p.checkContent(content{fields: all, raw: c.raw}, path); !ok {
		return d
	}
	return allowDecision()
}

// parseEncodedBody parses the request's body unless it declares a Content-Encoding: the rules
// read the bytes as they are, a backend that decodes the encoding reads other ones.
func parseEncodedBody(r Request) (content, error) {
	if len(r.Body) > 0 {
		for _, v := range r.Header.Values("Content-Encoding") {
			if e := strings.TrimSpace(v); e != "" && !strings.EqualFold(e, "identity") {
				return content{}, fmt.Errorf("%w: the body declares Content-Encoding %s; the rules read it as sent, a backend may decode it", errAmbiguous, clipQuote(v))
			}
		}
	}
	return parseBody(r.ContentType, r.Body)
}

// bodyRule names the rule for a body that cannot be judged: RuleAmbiguousRequest when it reads
// two ways (errAmbiguous), RuleBodyUnreadable otherwise.
func bodyRule(err error) Rule {
	if errors.Is(err, errAmbiguous) {
		return RuleAmbiguousRequest
	}
	return RuleBodyUnreadable
}

// overridesOf returns the overrides among judged.
func overridesOf(judged []methodWrites) []methodOverride {
	var out []methodOverride
	for _, mw := range judged {
		if mw.override != nil {
			out = append(out, *mw.override)
		}
	}
	return out
}

// judgeOperation judges the request as one method: a write's operation against the entries it
// matched, or a read against the deny_fields of the writes on its path and its GraphQL documents.
func (p *Policy) judgeOperation(mw methodWrites, host, port, path string, query, all []field, gql []gqlRequest) Decision {
	if mw.writes != nil {
		var first Decision
		for _, w := range mw.writes {
			d, good := w.checkOperation(all, gql)
			if good && p.Mode == ModeObserve {
				// observe mode lets a write entry through only for a GraphQL read (checkMethod): its
				// every operation must be a query, whatever else the entry lists.
				d, good = observeOnlyQueries(methodName(mw.method), hostPort(host, port)+path, gql)
			}
			if good {
				return allowDecision()
			}
			if first.Rule == "" {
				first = d
			}
		}
		return first
	}
	// A read that names an operation of a write on the same path (?azione=elimina on the status
	// endpoint, a form switched to GET) is judged like that write's deny_fields.
	for _, w := range p.Actions.Writes {
		if w.Path.MatchString(path) && p.writeHost(w, host, port) {
			if name, ok := w.deniedField(query); ok {
				return deny(RuleWriteOperation, "%s %s%s carries %q, a deny_fields entry of the write %s %s", methodName(mw.method), hostPort(host, port), path, name, w.Method, w.Path)
			}
		}
	}
	if d, ok := checkGraphQLRead(methodName(mw.method), hostPort(host, port)+path, gql); !ok {
		return d
	}
	return allowDecision()
}

// checkOperation reports whether the fields (query and body) and the GraphQL operations are the
// operation the write entry allows.
func (w Write) checkOperation(fields []field, gql []gqlRequest) (Decision, bool) {
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
		return w.checkGraphQLOperations(gql)
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
