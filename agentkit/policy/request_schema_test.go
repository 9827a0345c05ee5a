package policy

import (
	"errors"
	"testing"
)

// TestParseRequestErrors: the schema additions of issue 15 fail with file:line:field, as the rest.
func TestParseRequestErrors(t *testing.T) {
	words := "actions:\n  deny_words:\n    destructive: [elimin]\n"
	cases := []struct {
		name  string
		yml   string
		line  int
		field string
		code  Code
	}{
		{"requests unknown key", minimal + "requests: {deny_wordz: []}\n", 6, "requests.deny_wordz", CodeUnknownKey},
		{"requests unknown category", minimal + words + "requests:\n  deny_words: [destructive, distructive]\n", 10, "requests.deny_words[1]", CodeUnknownValue},
		{"requests category, no deny words", minimal + "requests:\n  deny_words: [destructive]\n", 7, "requests.deny_words[0]", CodeUnknownValue},
		{"outside_url_param value", minimal + "requests: {outside_url_param: sometimes}\n", 6, "requests.outside_url_param", CodeUnknownValue},
		{"outside_url_param_paths regex", minimal + "requests: {outside_url_param_paths: [\"(\"]}\n", 6, "requests.outside_url_param_paths[0]", CodeInvalidRegex},
		{"max_body_bytes zero", minimal + "requests: {max_body_bytes: 0}\n", 6, "requests.max_body_bytes", CodeInvalidValue},
		{"max_body_bytes string", minimal + "requests: {max_body_bytes: 64k}\n", 6, "requests.max_body_bytes", CodeWrongType},
		{"unreadable_bodies value", minimal + "requests: {unreadable_bodies: ignore}\n", 6, "requests.unreadable_bodies", CodeUnknownValue},
		{"write bad host", minimal + "actions:\n  writes:\n    - {method: POST, path: \"^/\", host: \"a b\"}\n", 8, "actions.writes[0].host", CodeInvalidHost},
		{"write form not a map", minimal + "actions:\n  writes:\n    - {method: POST, path: \"^/\", form: [stato]}\n", 8, "actions.writes[0].form", CodeWrongType},
		{"write form values not a list", minimal + "actions:\n  writes:\n    - method: POST\n      path: \"^/\"\n      form: {stato: chiusa}\n", 10, "actions.writes[0].form.stato", CodeWrongType},
		{"write form value not a string", minimal + "actions:\n  writes:\n    - method: POST\n      path: \"^/\"\n      form: {stato: [[x]]}\n", 10, "actions.writes[0].form.stato[0]", CodeWrongType},
		{"write deny_fields empty name", minimal + "actions:\n  writes:\n    - {method: POST, path: \"^/\", deny_fields: [\"\"]}\n", 8, "actions.writes[0].deny_fields[0]", CodeEmpty},
		{"write operations not a list", minimal + "actions:\n  writes:\n    - {method: POST, path: \"^/\", operations: Update}\n", 8, "actions.writes[0].operations", CodeWrongType},
		{"write operation, unknown type", minimal + "actions:\n  writes:\n    - {method: POST, path: \"^/\", operations: [\"delete pratica\"]}\n", 8, "actions.writes[0].operations[0]", CodeInvalidValue},
		{"write operation, type alone", minimal + "actions:\n  writes:\n    - {method: POST, path: \"^/\", operations: [pratica, mutation stato x]}\n", 8, "actions.writes[0].operations[1]", CodeInvalidValue},
		{"write operation, not a GraphQL name", minimal + "actions:\n  writes:\n    - {method: POST, path: \"^/\", operations: [\"mutation 1stato\"]}\n", 8, "actions.writes[0].operations[0]", CodeInvalidValue},
		{"write unknown key", minimal + "actions:\n  writes:\n    - {method: POST, path: \"^/\", fields: [a]}\n", 8, "actions.writes[0].fields", CodeUnknownKey},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p, err := Parse("policies/x.yml", []byte(c.yml))
			var errs Errors
			if p != nil || !errors.As(err, &errs) || len(errs) != 1 {
				t.Fatalf("want exactly one error, got policy %v, error %v", p != nil, err)
			}
			e := errs[0]
			if e.Line != c.line || e.Field != c.field || e.Code != c.code {
				t.Errorf("error = {%d %q %q}, want {%d %q %q}: %v", e.Line, e.Field, e.Code, c.line, c.field, c.code, e)
			}
		})
	}
}

// TestRequestSchemaRoundTrip: the new fields survive Marshal and Parse.
func TestRequestSchemaRoundTrip(t *testing.T) {
	yml := minimal + `actions:
  deny_words: {destructive: [elimin]}
  writes:
    - method: POST
      host: "a.test:8080"
      path: "^/x$"
      form: {stato: [chiusa], nota: []}
      deny_fields: [azione]
      operations: [Update]
requests:
  deny_words: [destructive]
  outside_url_param: deny
  outside_url_param_paths: ["^/vai$"]
  max_body_bytes: 100
  unreadable_bodies: allow
`
	p, err := Parse("x.yml", []byte(yml))
	if err != nil {
		t.Fatal(err)
	}
	q, _ := marshalParse(t, "x.yml", p)
	w := q.Actions.Writes[0]
	if w.Host != "a.test" || w.Port != "8080" || len(w.Form["stato"]) != 1 || w.Form["nota"] == nil || w.DenyFields[0] != "azione" || w.Operations[0] != "Update" {
		t.Errorf("write after round trip = %+v", w)
	}
	r := q.Requests
	if r.DenyWords[0] != "destructive" || r.OutsideURLParam != Deny || r.OutsideURLParamPaths[0].Source != "^/vai$" || r.MaxBodyBytes != 100 || r.UnreadableBodies != Allow {
		t.Errorf("requests after round trip = %+v", r)
	}
	c := p.Clone()
	c.Actions.Writes[0].Form["stato"][0] = "x"
	c.Requests.DenyWords[0] = "y"
	if p.Actions.Writes[0].Form["stato"][0] != "chiusa" || p.Requests.DenyWords[0] != "destructive" {
		t.Errorf("Clone shares the new lists")
	}
}
