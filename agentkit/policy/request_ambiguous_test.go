package policy

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"mime/multipart"
	"net/textproto"
	"net/url"
	"reflect"
	"strings"
	"testing"
)

// multipartParts builds a multipart/form-data body from parts in order, each with its own
// Content-Type ("" for none).
func multipartParts(t testing.TB, parts ...[3]string) (string, []byte) {
	var b bytes.Buffer
	w := multipart.NewWriter(&b)
	for _, p := range parts {
		h := textproto.MIMEHeader{}
		h.Set("Content-Disposition", `form-data; name="`+p[0]+`"`)
		if p[2] != "" {
			h.Set("Content-Type", p[2])
		}
		pw, err := w.CreatePart(h)
		if err == nil {
			_, err = pw.Write([]byte(p[1]))
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return w.FormDataContentType(), b.Bytes()
}

// ambiguousCases are bodies that read two ways (issue 49.5): each refused case was allowed before,
// judged on the last copy of a key while a backend that keeps the first deletes. The allowed cases
// are their benign neighbours: a name repeated in its own place is judged copy by copy.
func ambiguousCases() []requestCase {
	stato := portal + "/pratiche/3/stato"
	gql := portal + "/graphql"
	mpType, mpBody := multipartParts(nil, [3]string{"stato", "chiusa", ""}, [3]string{"dati", `{"stato":"eliminata"}`, "application/json"})
	mpDupType, mpDupBody := multipartParts(nil, [3]string{"dati", `{"nota":"x","nota":"y"}`, "application/json; charset=utf-8"})
	mpOKType, mpOKBody := multipartParts(nil, [3]string{"testo", "x", ""}, [3]string{"dati", `{"nota":"x"}`, "application/json"})
	utf7 := jsonPost(stato, `{"stato":"chiusa+ACI-,+ACI-stato+ACI-:+ACI-eliminata"}`)
	utf7.ContentType = "application/json; charset=utf-7"
	utf8 := jsonPost(stato, `{"stato":"chiusa"}`)
	utf8.ContentType = "application/json; charset=UTF-8"
	const read, archive = `query GetPratica { pratica(id: 1) { id } }`, `mutation GetPratica { archivia(id: 1) { id } }`
	twice := url.Values{"query": {read, archive}}.Encode()
	return []requestCase{
		// A key twice in one JSON object, in any spelling and at any depth.
		{"JSON key twice, the first deletes", "reference", jsonPost(stato, `{"stato":"eliminata","stato":"chiusa"}`), RuleAmbiguousRequest, `"stato" is given twice`},
		{"JSON key twice, escaped spelling", "reference", jsonPost(stato, `{"st\u0061to":"eliminata","stato":"chiusa"}`), RuleAmbiguousRequest, "given twice"},
		{"JSON key twice, nested object in the first copy", "reference", jsonPost(stato, `{"stato":{"azione":"elimina"},"stato":"chiusa"}`), RuleAmbiguousRequest, "given twice"},
		{"JSON key twice, other case", "reference", jsonPost(stato, `{"STATO":"eliminata","stato":"chiusa"}`), RuleAmbiguousRequest, `first as "STATO"`},
		{"JSON key twice, long s folds to S", "reference", jsonPost(stato, "{\"\u017ftato\":\"eliminata\",\"stato\":\"chiusa\"}"), RuleAmbiguousRequest, "given twice"},
		{"JSON key twice in a nested object", "graphql", jsonPost(portal+"/note", `{"testo":"x","meta":{"a":1,"a":2}}`), RuleAmbiguousRequest, `"a" is given twice`},
		{"a second query in a GraphQL body", "graphql", jsonPost(gql, `{"query":"`+read+`","query":"`+archive+`"}`), RuleAmbiguousRequest, `"query" is given twice`},
		{"a second query in a batch element", "graphql", jsonPost(gql, `[{"query":"`+read+`"},{"query":"`+read+`","query":"`+archive+`"}]`), RuleAmbiguousRequest, `"query" is given twice`},
		// One name in two places.
		{"form field and query parameter", "reference", form(stato+"?stato=chiusa", "stato=chiusa"), RuleAmbiguousRequest, "both a query parameter and a body field"},
		{"JSON key and query parameter", "reference", jsonPost(stato+"?Stato=chiusa", `{"stato":"chiusa"}`), RuleAmbiguousRequest, "both a query parameter and a body field"},
		{"GraphQL document in the URL and the body", "graphql", jsonPost(gql+"?"+url.Values{"query": {read}}.Encode(), `{"query":"`+read+`"}`), RuleAmbiguousRequest, "both"},
		{"GraphQL query parameter twice", "graphql", sub(gql + "?" + twice), RuleAmbiguousRequest, `"query" is given 2 times`},
		{"form part and a JSON part's key", "reference", Request{Method: "POST", URL: stato, ContentType: mpType, Body: mpBody}, RuleAmbiguousRequest, "both a key of a JSON part and a body field"},
		{"JSON part with a key twice", "graphql", Request{Method: "POST", URL: portal + "/note", ContentType: mpDupType, Body: mpDupBody}, RuleAmbiguousRequest, "given twice"},
		{"a charset the rules do not read", "reference", utf7, RuleAmbiguousRequest, "utf-7"},
		{"a body in a Content-Encoding", "reference", withHeader(form(stato, "stato=chiusa"), "Content-Encoding", "gzip"), RuleAmbiguousRequest, "Content-Encoding"},
		{"Content-Encoding identity", "reference", withHeader(form(stato, "stato=chiusa"), "Content-Encoding", "identity"), RuleAllowed, ""},
		// Neighbours that stay allowed, or are judged copy by copy.
		{"JSON body, declared UTF-8", "reference", utf8, RuleAllowed, ""},
		{"form field repeated, every copy allowed", "reference", form(stato, "stato=chiusa&stato=aperta"), RuleAllowed, ""},
		{"form field repeated, one copy refused", "reference", form(stato, "stato=chiusa&stato=eliminata"), RuleWriteOperation, "outside the values"},
		{"one key in sibling objects", "graphql", jsonPost(portal+"/note", `{"a":{"x":1},"b":{"x":2},"c":[{"x":1},{"x":2}]}`), RuleAllowed, ""},
		{"JSON part beside a form part", "graphql", Request{Method: "POST", URL: portal + "/note", ContentType: mpOKType, Body: mpOKBody}, RuleAllowed, ""},
		{"search box query repeated", "reference", sub(portal + "/pratiche?query=a&query=b"), RuleAllowed, ""},
		{"control policy lets an ambiguous body through", "permissive", jsonPost(stato, `{"stato":"eliminata","stato":"chiusa"}`), RuleAllowed, ""},
	}
}

func TestDecideRequestRefusesAmbiguity(t *testing.T) {
	ps := policies(t)
	ps["graphql"] = mustParse(t, graphQLPolicy)
	for _, c := range ambiguousCases() {
		t.Run(c.name, func(t *testing.T) {
			d := ps[c.policy].DecideRequest(c.req)
			checkDecision(t, d, c.rule, "")
			if !strings.Contains(d.Reason, c.reason) {
				t.Errorf("reason %q does not say %q", d.Reason, c.reason)
			}
		})
	}
}

// TestStrictJSONAgreesWithEncodingJSON: without repeated keys, decodeJSONStrict reads what
// json.Unmarshal reads, and refuses what it refuses.
func TestStrictJSONAgreesWithEncodingJSON(t *testing.T) {
	for _, in := range strictJSONSeeds() {
		checkStrictJSON(t, []byte(in))
	}
}

func strictJSONSeeds() []string {
	return []string{
		`{}`, `[]`, `null`, `1.5e3`, `"x"`, `{"a":[1,{"b":null}],"c":true}`, `{"a":1,}`, `[1,]`, `{"a" 1}`,
		`{"a":1}{}`, `{"a":1} `, `{"a":1,"a":2}`, `{"a":1,"A":2}`, `{"\u0061":1,"a":2}`, `{"K":1,"\u212a":2}`,
		`[{"a":1},{"a":1}]`, `{"a":{"a":{"a":1}}}`, "{\"a\":\"\xff\"}", `{"a":1`, `"\ud800"`, ``, ` `,
		strings.Repeat("[", 40) + strings.Repeat("]", 40),
	}
}

func checkStrictJSON(t *testing.T, in []byte) {
	t.Helper()
	got, err := decodeJSONStrict(in)
	dec := json.NewDecoder(bytes.NewReader(in))
	dec.UseNumber()
	var want any
	werr := dec.Decode(&want)
	if werr == nil {
		if _, e := dec.Token(); !errors.Is(e, io.EOF) {
			werr = errors.New("data after the value")
		}
	}
	switch {
	case err == nil && werr != nil:
		t.Fatalf("%q: strict accepts what encoding/json refuses (%v)", in, werr)
	case err == nil && !reflect.DeepEqual(got, want):
		t.Fatalf("%q: strict read %#v, encoding/json %#v", in, got, want)
	case err != nil && werr == nil && !errors.Is(err, errAmbiguous) && !strings.Contains(err.Error(), "nested"):
		t.Fatalf("%q: strict refuses (%v) what encoding/json reads", in, err)
	}
}

// FuzzStrictJSON: decodeJSONStrict never reads a body otherwise than encoding/json, and never
// accepts one with a key twice in an object (checked with a second, independent token walk).
//
//	go test -run '^$' -fuzz FuzzStrictJSON -fuzztime 60s ./agentkit/policy/
func FuzzStrictJSON(f *testing.F) {
	for _, s := range strictJSONSeeds() {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		checkStrictJSON(t, in)
		if _, err := decodeJSONStrict(in); err == nil && hasFoldedDuplicate(in) {
			t.Fatalf("%q: accepted with a repeated key", in)
		}
	})
}

// hasFoldedDuplicate walks the tokens with a stack of key sets: an oracle independent of
// readJSONObject's recursion.
func hasFoldedDuplicate(in []byte) bool {
	dec := json.NewDecoder(bytes.NewReader(in))
	type frame struct {
		obj      bool
		keys     map[string]bool
		wantsKey bool
	}
	var stack []*frame
	for {
		tok, err := dec.Token()
		if err != nil {
			return false
		}
		top := (*frame)(nil)
		if len(stack) > 0 {
			top = stack[len(stack)-1]
		}
		if d, ok := tok.(json.Delim); ok && (d == '}' || d == ']') {
			stack = stack[:len(stack)-1]
			if len(stack) > 0 && stack[len(stack)-1].obj {
				stack[len(stack)-1].wantsKey = true
			}
			continue
		}
		if top != nil && top.obj && top.wantsKey {
			k := foldKey(tok.(string))
			if top.keys[k] {
				return true
			}
			top.keys[k] = true
			top.wantsKey = false
			continue
		}
		if d, ok := tok.(json.Delim); ok {
			stack = append(stack, &frame{obj: d == '{', keys: map[string]bool{}, wantsKey: d == '{'})
			continue
		}
		if top != nil && top.obj {
			top.wantsKey = true
		}
	}
}

// TestReasonsQuoteBoundedText: a key, a header or a field name the request or response chooses is
// quoted in a reason cut to maxQuoted bytes, so no sender sets the length of a decision-log line.
func TestReasonsQuoteBoundedText(t *testing.T) {
	ps := policies(t)
	ps["graphql"] = mustParse(t, graphQLPolicy)
	long := strings.Repeat("k", 20000)
	for name, d := range map[string]Decision{
		"JSON key":      ps["reference"].DecideRequest(jsonPost(portal+"/pratiche/3/stato", `{"`+long+`":1,"`+long+`":2}`)),
		"query name":    ps["reference"].DecideRequest(form(portal+"/pratiche/3/stato?"+long+"=1", long+"=2")),
		"header param":  ps["reference"].DecideResponse(Response{URL: portal + "/x", ContentDisposition: "attachment; " + long}),
		"GraphQL field": ps["graphql"].DecideRequest(jsonPost(portal+"/graphql", `{"query":"mutation { `+long+` }"}`)),
	} {
		if d.Allow || len(d.Reason) > 400 {
			t.Errorf("%s: %d-byte reason (allow %v)", name, len(d.Reason), d.Allow)
		}
	}
}
