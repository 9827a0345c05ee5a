package action

import (
	"errors"
	"testing"
)

func TestParse(t *testing.T) {
	cases := []struct {
		name, in string
		ok       bool
		field    string
	}{
		{"click", `{"action":"click","ref":"abc123:e8"}`, true, ""},
		{"goto", `{"action":"goto","url":"http://portale.interno.test/"}`, true, ""},
		{"done", `{"action":"done","reason":"ok"}`, true, ""},
		{"fill empty value ok", `{"action":"fill","ref":"a:e1"}`, true, ""},
		{"bare ref: the loop rejects it, as UNKNOWN_REF", `{"action":"click","ref":"e8"}`, true, ""},
		{"missing ref", `{"action":"click"}`, false, "ref"},
		{"relative goto", `{"action":"goto","url":"/admin"}`, false, "url"},
		{"unknown kind", `{"action":"drag","ref":"a:e1"}`, false, "action"},
		{"missing kind", `{"ref":"a:e1"}`, false, "action"},
		{"select no value", `{"action":"select","ref":"a:e1"}`, false, "value"},
		{"press no key", `{"action":"press","ref":"a:e1"}`, false, "key"},
		{"scroll bad dir", `{"action":"scroll","dir":"left"}`, false, "dir"},
		{"unknown field", `{"action":"click","ref":"a:e1","x":1}`, false, ""},
		{"garbage", `click e8 please`, false, ""},
		{"trailing", `{"action":"done"} {"action":"done"}`, false, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			a, err := Parse([]byte(c.in))
			if c.ok {
				if err != nil {
					t.Fatalf("Parse(%s) = %v", c.in, err)
				}
				if a.Kind == "" {
					t.Fatalf("Parse(%s) lost the kind", c.in)
				}
				return
			}
			if !errors.Is(err, ErrInvalid) {
				t.Fatalf("Parse(%s) err = %v, want ErrInvalid", c.in, err)
			}
			var ie *InvalidError
			if c.field != "" && (!errors.As(err, &ie) || ie.Field != c.field) {
				t.Fatalf("Parse(%s) err = %v, want field %q", c.in, err, c.field)
			}
		})
	}
}

func TestTargetsAndMutates(t *testing.T) {
	if !(Action{Kind: Click}).Targets() || (Action{Kind: Goto}).Targets() {
		t.Fatal("Targets wrong for click/goto")
	}
	if (Action{Kind: Read}).Mutates() || !(Action{Kind: Click}).Mutates() {
		t.Fatal("Mutates wrong for read/click")
	}
	if got := (Action{Kind: Click, Ref: "a:e1"}).String(); got != `click ref="a:e1"` {
		t.Fatalf("String = %s", got)
	}
}

func TestParseOnResolvesASameOriginPath(t *testing.T) {
	const page = "http://portale.interno.test/pratiche?pagina=2"
	a, err := ParseOn([]byte(`{"action":"goto","url":"/pratiche/4"}`), page)
	if err != nil || a.URL != "http://portale.interno.test/pratiche/4" {
		t.Fatalf("ParseOn = %+v, %v; want the path resolved on the page's origin", a, err)
	}
	for _, bad := range []string{
		`{"action":"goto","url":"//evil.example.test/x"}`, // scheme-relative: another host, never resolved
		`{"action":"goto","url":"pratiche/4"}`,            // not a path
		`{"action":"goto","url":"/x","extra":1}`,          // still strict
		`{"action":"goto","url":"/x"} {"action":"done"}`,  // trailing data
	} {
		if _, err := ParseOn([]byte(bad), page); !errors.Is(err, ErrInvalid) {
			t.Errorf("ParseOn(%s) err = %v, want ErrInvalid", bad, err)
		}
	}
	if _, err := ParseOn([]byte(`{"action":"goto","url":"/x"}`), "not a url"); !errors.Is(err, ErrInvalid) {
		t.Errorf("a relative goto on a page without a URL must stay invalid, got %v", err)
	}
}
