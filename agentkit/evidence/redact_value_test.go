package evidence

import (
	"net/url"
	"strings"
	"testing"
)

type valueDetail struct {
	Detail string
	Tags   map[string]string
	Any    any
	Ptr    *string
	inner  string
}

type valueRecord struct {
	Name    string
	Effects []valueDetail
	Arr     [2]string
}

func TestValueRedactsEveryReachableString(t *testing.T) {
	const secret = "s3cr3t-Pa55"
	ptr := "token " + secret
	rec := &valueRecord{
		Name: "plain " + secret,
		Effects: []valueDetail{{
			Detail: `status 200 | body: {"identity":"a","password":"` + secret + `"}`,
			Tags:   map[string]string{"q": "password=" + url.QueryEscape(secret+"&")},
			Any:    "held " + secret,
			Ptr:    &ptr,
			inner:  secret,
		}},
		Arr: [2]string{"ok", secret},
	}
	NewRedactor(secret).Value(rec)
	e := rec.Effects[0]
	for name, got := range map[string]string{"Name": rec.Name, "Detail": e.Detail, "Tags": e.Tags["q"], "Any": e.Any.(string), "Ptr": *e.Ptr, "Arr": rec.Arr[1]} {
		if strings.Contains(got, secret) || !strings.Contains(got, Redacted) {
			t.Errorf("%s = %q: want the secret replaced by %s", name, got, Redacted)
		}
	}
	if e.inner != secret {
		t.Errorf("an unexported field is left as it is, got %q", e.inner)
	}
	if rec.Arr[0] != "ok" {
		t.Errorf("a string without the secret changed: %q", rec.Arr[0])
	}
}

func TestValueWithoutSecretsOrPointerDoesNothing(t *testing.T) {
	rec := valueRecord{Name: "x"}
	NewRedactor("x").Value(rec) // not a pointer: nothing can be set
	NewRedactor().Value(&rec)
	var nilRec *valueRecord
	NewRedactor("x").Value(nilRec)
	if rec.Name != "x" {
		t.Fatalf("Name = %q", rec.Name)
	}
}
