package policy

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// graphQLTypeCases judge a GraphQL document by its operation types and root fields (issue 49.6),
// under graphQLPolicy (operations: [pratica, "mutation stato"]) and under a policy written with
// the old, name-only reading ("getPratica"), which now names a query's root field. Every refused
// case but the last three was allowed before, on the name the operation claims.
func graphQLTypeCases() []requestCase {
	gql := portal + "/graphql"
	doc := func(d string) Request { return jsonPost(gql, fmt.Sprintf(`{"query":%q}`, d)) }
	return []requestCase{
		{"a mutation named like an allowed read", "legacy", doc(`mutation getPratica { archivia(id: 1) { id } }`), RuleWriteOperation, `selects the root field "archivia"`},
		{"a mutation selecting the allowed read's field", "legacy", doc(`mutation getPratica { getPratica(id: 1) { id } }`), RuleWriteOperation, `mutation "getPratica"`},
		{"the legacy entry's query", "legacy", doc(`query getPratica { getPratica(id: 1) { id } }`), RuleAllowed, ""},
		{"a query under any name", "graphql", doc(`query UpdateStato { pratica(id: 1) { id } }`), RuleAllowed, ""},
		{"the allowed mutation under any name", "graphql", doc(`mutation pratica { stato(id: 1, stato: CHIUSA) { id } }`), RuleAllowed, ""},
		{"an alias named like the allowed field", "graphql", doc(`mutation { stato: archivia(id: 1) { id } }`), RuleWriteOperation, `"archivia"`},
		{"a second root field beside the allowed one", "graphql", doc(`mutation { stato(id: 1) { id } archivia(id: 1) { id } }`), RuleWriteOperation, `"archivia"`},
		{"a root field through a fragment spread", "graphql", doc(`mutation M { ...F } fragment F on Mutation { archivia(id: 1) { id } }`), RuleWriteOperation, `"archivia"`},
		{"a root field through nested fragments", "graphql", doc(`mutation M { ...A } fragment A on Mutation { ... on Mutation { ...B } } fragment B on Mutation { archivia(id: 1) { id } }`), RuleWriteOperation, `"archivia"`},
		{"a root field under @skip(if: true)", "graphql", doc(`mutation { stato(id: 1) { id } archivia(id: 1) @skip(if: true) { id } }`), RuleWriteOperation, `"archivia"`},
		{"a mutation-only field read as a query", "graphql", doc(`query { stato(id: 1) { id } }`), RuleWriteOperation, `query (anonymous) selects the root field "stato"`},
		{"a read's field in a subscription", "graphql", doc(`subscription { pratica(id: 1) { id } }`), RuleWriteOperation, `subscription`},
		{"a nested field is no operation", "graphql", doc(`mutation { stato(id: 1) { archivia { id } } }`), RuleAllowed, ""},
		{"an undefined fragment", "graphql", doc(`mutation { ...F }`), RuleWriteOperation, "does not define"},
		{"a cyclic fragment", "graphql", doc(`query { ...F } fragment F on Query { ...G } fragment G on Query { ...F }`), RuleWriteOperation, "spreads itself"},
		{"a fragment defined twice", "graphql", doc(`mutation { ...F } fragment F on Mutation { stato { id } } fragment F on Mutation { archivia { id } }`), RuleWriteOperation, "twice"},
	}
}

func TestDecideRequestJudgesGraphQLByTypeAndField(t *testing.T) {
	ps := policies(t)
	ps["graphql"] = mustParse(t, graphQLPolicy)
	ps["legacy"] = mustParse(t, strings.Replace(graphQLPolicy, `[pratica, "mutation stato"]`, `[getPratica]`, 1))
	for _, c := range graphQLTypeCases() {
		t.Run(c.name, func(t *testing.T) {
			d := ps[c.policy].DecideRequest(c.req)
			checkDecision(t, d, c.rule, "")
			if !strings.Contains(d.Reason, c.reason) {
				t.Errorf("reason %q does not say %q", d.Reason, c.reason)
			}
		})
	}
}

// TestFragmentsCostLinearWork: fragments that each spread the next twice (2^30 selections when
// expanded) are read once each.
func TestFragmentsCostLinearWork(t *testing.T) {
	var b strings.Builder
	b.WriteString("mutation { ...F0 }")
	for i := 0; i < 30; i++ {
		fmt.Fprintf(&b, " fragment F%d on Mutation { ...F%d ...F%d }", i, i+1, i+1)
	}
	b.WriteString(" fragment F30 on Mutation { archivia { id } }")
	start := time.Now()
	ops, err := graphQLOperations(b.String())
	if err != nil || len(ops) != 1 || fmt.Sprint(ops[0].fields) != "[archivia]" {
		t.Fatalf("ops %+v, err %v", ops, err)
	}
	if d := time.Since(start); d > time.Second {
		t.Errorf("took %v", d)
	}
}

// FuzzGraphQLOperations: the reading never panics, and a document allowed under a policy that
// lists only the query field "pratica" holds no mutation or subscription and selects nothing else
// at its root, by gqlparser's own reading of every operation.
//
//	go test -run '^$' -fuzz FuzzGraphQLOperations -fuzztime 60s ./agentkit/policy/
func FuzzGraphQLOperations(f *testing.F) {
	for _, c := range graphQLTypeCases() {
		f.Add(string(c.req.Body))
	}
	f.Add(`{"query":"{ pratica { id } }"}`)
	p, err := Parse("fuzz.yml", []byte(strings.Replace(graphQLPolicy, `[pratica, "mutation stato"]`, `[pratica]`, 1)))
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, body string) {
		d := p.DecideRequest(jsonPost(portal+"/graphql", body))
		if !d.Allow {
			return
		}
		c, err := parseBody("application/json", []byte(body))
		if err != nil || len(c.gql) == 0 {
			t.Fatalf("allowed a body that is no GraphQL request (%v): %q", err, body)
		}
		for _, g := range c.gql {
			ops, err := graphQLOperations(g.document)
			if err != nil {
				t.Fatalf("allowed a document that does not parse: %q", body)
			}
			for _, o := range ops {
				if o.kind != "query" || len(o.fields) != 1 || o.fields[0] != "pratica" {
					t.Fatalf("allowed %s %v: %q", o.kind, o.fields, body)
				}
			}
		}
	})
}

// TestSummaryShowsOperationsAsRead: lint prints each operations entry as it is read, so a bare
// name written for the old, name-only reading shows it now allows a query's root field.
func TestSummaryShowsOperationsAsRead(t *testing.T) {
	s := mustParse(t, graphQLPolicy).Summary()
	if !strings.Contains(s, "GraphQL operations by root field: query pratica, mutation stato") {
		t.Errorf("summary does not show the operations as read:\n%s", s)
	}
}
