package policy

import (
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"slices"
	"strings"

	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/parser"
)

// maxGraphQLTokens bounds the tokens of one GraphQL document read from a request (the body is
// already capped by max_body_bytes; this bounds the parser's work on it).
const maxGraphQLTokens = 20000

// gqlRequest is one GraphQL-over-HTTP request a body or query string carries: a JSON object
// {"query", "operationName", "extensions"}, one element of a batched array, an application/graphql
// body, or the query parameters of a GET.
type gqlRequest struct {
	document  string // the GraphQL document ("query"); "" for a persisted query
	hasDoc    bool   // a document was sent
	operation string // the operationName the request claims, "" when none
	persisted bool   // names a stored document by id or hash (extensions.persistedQuery, documentId, doc_id)
}

// gqlOperation is one operation definition of a document: what the server may run.
type gqlOperation struct {
	kind   string   // query, mutation or subscription
	name   string   // "" for an anonymous operation; a label the client chooses, never judged
	fields []string // the root fields it selects (through fragments, whatever their directives)
}

// graphQLOperations parses a GraphQL document (github.com/vektah/gqlparser/v2, the parser gqlgen
// uses) and returns its operations with the root fields each selects. The error never quotes the
// document (it may hold secrets).
func graphQLOperations(doc string) ([]gqlOperation, error) {
	qd, err := parser.ParseQueryWithTokenLimit(&ast.Source{Input: doc}, maxGraphQLTokens)
	if err != nil {
		return nil, fmt.Errorf("the GraphQL document does not parse")
	}
	frags := map[string]*ast.FragmentDefinition{}
	for _, f := range qd.Fragments {
		if frags[f.Name] != nil {
			return nil, fmt.Errorf("the GraphQL document defines the fragment %s twice", clipQuote(f.Name))
		}
		frags[f.Name] = f
	}
	w := &fragmentWalk{defs: frags, done: map[string][]string{}, open: map[string]bool{}}
	out := make([]gqlOperation, 0, len(qd.Operations))
	for _, op := range qd.Operations {
		fields, err := w.rootFields(op.SelectionSet)
		if err != nil {
			return nil, err
		}
		out = append(out, gqlOperation{kind: string(op.Operation), name: op.Name, fields: fields})
	}
	return out, nil
}

// fragmentWalk reads root fields through a document's fragments, each fragment once (done), so
// that fragments spreading each other twice over cost linear work, not exponential.
type fragmentWalk struct {
	defs map[string]*ast.FragmentDefinition
	done map[string][]string // a fragment's root fields, once read
	open map[string]bool     // fragments being read (a spread of one of them is a cycle)
}

// rootFields returns the names (sorted, once each) of the fields a selection set selects at its own level, through
// inline fragments and fragment spreads (an undefined or cyclic spread is an error). Aliases are
// dropped (an alias is the client's label, the name is what runs) and @skip/@include are ignored:
// a field that may run is judged.
func (w *fragmentWalk) rootFields(set ast.SelectionSet) ([]string, error) {
	var out []string
	for _, sel := range set {
		var more []string
		var err error
		switch s := sel.(type) {
		case *ast.Field:
			more = []string{s.Name}
		case *ast.InlineFragment:
			more, err = w.rootFields(s.SelectionSet)
		case *ast.FragmentSpread:
			more, err = w.spread(s.Name)
		}
		if err != nil {
			return nil, err
		}
		out = append(out, more...)
	}
	slices.Sort(out)
	return slices.Compact(out), nil // sorted, once each: a repeated spread adds nothing
}

func (w *fragmentWalk) spread(name string) ([]string, error) {
	if fields, ok := w.done[name]; ok {
		return fields, nil
	}
	f := w.defs[name]
	if f == nil || w.open[name] {
		return nil, fmt.Errorf("the GraphQL document spreads the fragment %s, which it does not define (or which spreads itself)", clipQuote(name))
	}
	w.open[name] = true
	fields, err := w.rootFields(f.SelectionSet)
	delete(w.open, name)
	if err != nil {
		return nil, err
	}
	w.done[name] = fields
	return fields, nil
}

// graphQLOfJSON reads the GraphQL requests of a JSON body: the object itself, or each object of a
// batched array.
func graphQLOfJSON(v any) []gqlRequest {
	var out []gqlRequest
	add := func(obj map[string]any) {
		g := gqlRequest{}
		q, hasQ := obj["query"].(string)
		if hasQ {
			g.document, g.hasDoc = q, true
		}
		g.operation, _ = obj["operationName"].(string)
		if ext, ok := obj["extensions"].(map[string]any); ok && ext["persistedQuery"] != nil {
			g.persisted = true
		}
		if obj["documentId"] != nil || obj["doc_id"] != nil {
			g.persisted = true
		}
		if hasQ || g.persisted {
			out = append(out, g)
		}
	}
	switch x := v.(type) {
	case map[string]any:
		add(x)
	case []any:
		for _, e := range x {
			if obj, ok := e.(map[string]any); ok {
				add(obj)
			}
		}
	}
	return out
}

// graphQLOfQuery reads a GraphQL request from query parameters (GraphQL over GET, or a POST that
// names its document in the URL): a "query" parameter that parses as a document with at least one
// operation, or a persisted query ("extensions" naming persistedQuery, "documentId"). A "query"
// that is not GraphQL (a search box's ?query=) is no GraphQL request. A GraphQL request that gives
// one of its parameters twice is errAmbiguous: servers differ on which copy they run (Go's
// URL.Query().Get takes the first, PHP the last), so no one copy can be judged as the one.
func graphQLOfQuery(query []field) (gqlRequest, bool, error) {
	var g gqlRequest
	seen := map[string]int{}
	for _, f := range query {
		switch f.Name {
		case "query":
			if ops, err := graphQLOperations(f.Value); err == nil && len(ops) > 0 {
				g.document, g.hasDoc = f.Value, true
			}
		case "operationName":
			g.operation = f.Value
		case "extensions":
			var ext map[string]any
			if json.Unmarshal([]byte(f.Value), &ext) == nil && ext["persistedQuery"] != nil {
				g.persisted = true
			}
		case "documentId", "doc_id":
			g.persisted = true
		case "variables":
		default:
			continue
		}
		seen[f.Name]++
	}
	isGQL := g.hasDoc || g.persisted
	for _, name := range slices.Sorted(maps.Keys(seen)) {
		if isGQL && seen[name] > 1 {
			return g, isGQL, fmt.Errorf("%w: the GraphQL parameter %q is given %d times in the query string", errAmbiguous, name, seen[name])
		}
	}
	return g, isGQL, nil
}

// hasOperationsRule reports whether any write of the policy lists GraphQL operations.
func (p *Policy) hasOperationsRule() bool {
	for _, w := range p.Actions.Writes {
		if len(w.Operations) > 0 {
			return true
		}
	}
	return false
}

// checkGraphQLRead refuses a read (or a write entry without an operations rule judged as a read)
// whose GraphQL documents hold a mutation or subscription: a write sent as a read.
func checkGraphQLRead(method, where string, gql []gqlRequest) (Decision, bool) {
	for _, g := range gql {
		if !g.hasDoc {
			continue
		}
		ops, err := graphQLOperations(g.document)
		if err != nil {
			continue // not GraphQL to this reading; its text is still judged for deny words
		}
		for _, op := range ops {
			if op.kind != string(ast.Query) {
				return deny(RuleWriteNotAllowed, "%s %s carries a GraphQL %s%s: a write sent as a read", method, where, op.kind, quotedName(op.name)), false
			}
		}
	}
	return Decision{}, true
}

// observeOnlyQueries is observe mode's judgement of a GraphQL request an operations rule allowed:
// every operation of every document a query (RuleObserveMode otherwise). checkGraphQLOperations has
// already refused a request without a readable document.
func observeOnlyQueries(method, where string, gql []gqlRequest) (Decision, bool) {
	for _, g := range gql {
		ops, err := graphQLOperations(g.document)
		if err != nil {
			return deny(RuleObserveMode, "observe mode: %s %s carries a GraphQL document that does not parse: %v", method, where, err), false
		}
		for _, op := range ops {
			if op.kind != string(ast.Query) {
				return deny(RuleObserveMode, "observe mode allows a GraphQL query only; %s %s carries a %s%s", method, where, op.kind, quotedName(op.name)), false
			}
		}
	}
	return Decision{}, true
}

// checkGraphQLOperations judges every operation of every GraphQL document the request carries
// against a write's operations: each must be named and listed, and a claimed operationName must
// name one of its document's operations. The claim alone is never trusted.
func (w Write) checkGraphQLOperations(gql []gqlRequest) (Decision, bool) {
	op := fmt.Sprintf("%s %s", w.Method, w.Path)
	if len(gql) == 0 {
		return deny(RuleWriteOperation, "the write %s allows only the GraphQL operations %v and the request carries no GraphQL document", op, w.Operations), false
	}
	for _, g := range gql {
		if !g.hasDoc {
			return deny(RuleGraphQLPersisted, "the write %s allows only the GraphQL operations %v and the request names a stored document, which cannot be judged", op, w.Operations), false
		}
		ops, err := graphQLOperations(g.document)
		if err != nil {
			return deny(RuleWriteOperation, "the write %s allows only the GraphQL operations %v: %v", op, w.Operations, err), false
		}
		if len(ops) == 0 {
			return deny(RuleWriteOperation, "the write %s allows only the GraphQL operations %v and the document holds no operation", op, w.Operations), false
		}
		for _, o := range ops {
			if len(o.fields) == 0 {
				return deny(RuleWriteOperation, "the document's GraphQL %s%s selects no root field the rules can read (the write %s)", o.kind, quotedNameOr(o.name, " (anonymous)"), op), false
			}
			for _, f := range o.fields {
				if !w.allowsOperation(o.kind, f) {
					return deny(RuleWriteOperation, "the document's GraphQL %s%s selects the root field %s, not one the write %s allows (%v)", o.kind, quotedNameOr(o.name, " (anonymous)"), clipQuote(f), op, w.Operations), false
				}
			}
		}
		if g.operation != "" && !slices.ContainsFunc(ops, func(o gqlOperation) bool { return o.name == g.operation }) {
			return deny(RuleWriteOperation, "GraphQL operationName %s names no operation of its document (the write %s)", clipQuote(g.operation), op), false
		}
	}
	return Decision{}, true
}

// gqlOperationTypes are the operation types an operations entry may name.
var gqlOperationTypes = []string{string(ast.Query), string(ast.Mutation), string(ast.Subscription)}

// parseOperationEntry reads one entry of a write's operations: "TYPE FIELD" (an operation type,
// query, mutation or subscription, and a root field it may select) or a bare "FIELD", which is
// "query FIELD" as GraphQL's own shorthand "{ FIELD }" is. It reports false for anything else.
func parseOperationEntry(entry string) (kind, field string, ok bool) {
	parts := strings.Fields(entry)
	switch len(parts) {
	case 1:
		kind, field = string(ast.Query), parts[0]
	case 2:
		kind, field = parts[0], parts[1]
	default:
		return "", "", false
	}
	return kind, field, slices.Contains(gqlOperationTypes, kind) && isGraphQLName(field)
}

// isGraphQLName reports whether s is a GraphQL Name: [_A-Za-z][_0-9A-Za-z]*.
func isGraphQLName(s string) bool {
	for i, r := range s {
		letter := r == '_' || ('a' <= r && r <= 'z') || ('A' <= r && r <= 'Z')
		if !letter && (i == 0 || r < '0' || r > '9') {
			return false
		}
	}
	return s != ""
}

// allowsOperation reports whether an entry of the write's operations allows the root field of an
// operation of that type. An entry that does not parse allows nothing.
func (w Write) allowsOperation(kind, field string) bool {
	for _, e := range w.Operations {
		if k, f, ok := parseOperationEntry(e); ok && k == kind && f == field {
			return true
		}
	}
	return false
}

func quotedName(name string) string { return quotedNameOr(name, "") }

func quotedNameOr(name, anon string) string {
	if name == "" {
		return anon
	}
	return " " + clipQuote(name)
}

// methodOverrideHeaders are the headers through which frameworks let a request say it is another
// method (Rails, Laravel, Symfony, Express method-override, ASP.NET, Google APIs).
var methodOverrideHeaders = []string{"X-HTTP-Method-Override", "X-HTTP-Method", "X-Method-Override"}

// methodOverride is a method a request says it is, besides its own, and where it says so.
type methodOverride struct {
	method string
	where  string // "header X-HTTP-Method-Override", "field _method"
}

// headerOverrides returns the methods the request's override headers name (each value whole and
// each comma-separated part), upper case, without the request's own method or repeats.
func headerOverrides(h http.Header, own string) []methodOverride {
	var out []methodOverride
	for _, name := range methodOverrideHeaders {
		for _, v := range h.Values(name) {
			for _, m := range append([]string{v}, strings.Split(v, ",")...) {
				out = addOverride(out, own, strings.TrimSpace(m), "header "+name)
			}
		}
	}
	return out
}

// fieldOverrides returns the methods named by "_method" fields (query, form, top-level JSON key;
// any case), as headerOverrides does.
func fieldOverrides(fields []field, own string, seen []methodOverride) []methodOverride {
	out := slices.Clone(seen)
	for _, f := range fields {
		if f.Scalar && f.Path == f.Top && strings.EqualFold(f.Top, "_method") {
			out = addOverride(out, own, strings.TrimSpace(f.Value), "field "+f.Top)
		}
	}
	return out[len(seen):]
}

func addOverride(list []methodOverride, own, m, where string) []methodOverride {
	m = strings.ToUpper(m)
	if m == "" || m == methodName(own) || slices.ContainsFunc(list, func(o methodOverride) bool { return o.method == m }) {
		return list
	}
	return append(list, methodOverride{method: m, where: where})
}

// overridden rewords a decision on an override: the method the request said it is, and where.
func overridden(d Decision, o methodOverride) Decision {
	d.Reason = RedactUserinfo(fmt.Sprintf("the request says it is %q (%s): %s", o.method, o.where, d.Reason))
	return d
}
