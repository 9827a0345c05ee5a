package observe

import (
	"errors"
	"strings"
	"testing"
)

const twoSalva = `- generic [ref=e1]:
  - button "Salva" [ref=e2]
  - button "Salva" [ref=e3]
  - button "Annulla" [ref=e4]
  - text: Salva`

func TestLookup(t *testing.T) {
	o := mustParse(t, "cur001", "", twoSalva)
	tests := []struct {
		qref     string
		wantName string
		wantErr  Code
	}{
		{"cur001:e4", "Annulla", ""},
		{"cur001:e2", "Salva", ""},
		{"e4", "", ErrBareRef},
		{"f1e2", "", ErrBareRef},
		{"old999:e4", "", ErrStaleRef},
		{"cur001:e99", "", ErrUnknownRef},
		{"", "", ErrMalformedRef},
		{"cur001:", "", ErrMalformedRef},
		{":e4", "", ErrMalformedRef},
		{"cur001:e4:x", "", ErrMalformedRef},
		{"button Salva", "", ErrMalformedRef},
		{"cur001: e4", "", ErrMalformedRef},
	}
	for _, tc := range tests {
		t.Run(tc.qref, func(t *testing.T) {
			n, err := o.Lookup(tc.qref)
			if tc.wantErr == "" {
				if err != nil || n.Name != tc.wantName {
					t.Fatalf("Lookup = %q, %v; want %q", n.Name, err, tc.wantName)
				}
				return
			}
			if !errors.Is(err, tc.wantErr) {
				t.Fatalf("err = %v, want %s", err, tc.wantErr)
			}
			for _, other := range []Code{ErrBareRef, ErrStaleRef, ErrUnknownRef, ErrMalformedRef} {
				if other != tc.wantErr && errors.Is(err, other) {
					t.Errorf("err %v also matches %s", err, other)
				}
			}
			var e *Error
			if !errors.As(err, &e) || e.Ref != tc.qref {
				t.Errorf("errors.As: %+v, want Ref %q", e, tc.qref)
			}
		})
	}
}

// TestLookupWithoutIndex covers an Observation built by hand, without the
// index Parse builds.
func TestLookupWithoutIndex(t *testing.T) {
	o := &Observation{SnapshotID: "hand01", Nodes: []Node{{RawRef: "e1", Ref: "hand01:e1", Role: "button", Parent: -1}}}
	if n, err := o.Lookup("hand01:e1"); err != nil || n.Role != "button" {
		t.Errorf("Lookup = %+v, %v", n, err)
	}
	if _, err := o.Lookup("hand01:e2"); !errors.Is(err, ErrUnknownRef) {
		t.Errorf("err = %v", err)
	}
}

func TestFind(t *testing.T) {
	o := mustParse(t, "cur001", "", twoSalva)
	tests := []struct {
		role, name string
		wantRef    string
		wantErr    Code
	}{
		{"button", "Annulla", "cur001:e4", ""},
		{"button", "Salva", "", ErrAmbiguousTarget},
		{"button", "salva", "", ErrNotFound},    // exact, case-sensitive
		{"button", "Annulla ", "", ErrNotFound}, // exact, no trimming
		{"link", "Annulla", "", ErrNotFound},
		{"text", "Salva", "", ErrNotFound}, // text nodes have no ref
		{"generic", "", "cur001:e1", ""},
	}
	for _, tc := range tests {
		t.Run(tc.role+"/"+tc.name, func(t *testing.T) {
			n, err := o.Find(tc.role, tc.name)
			if tc.wantErr == "" {
				if err != nil || n.Ref != tc.wantRef {
					t.Fatalf("Find = %q, %v; want %q", n.Ref, err, tc.wantRef)
				}
				return
			}
			if !errors.Is(err, tc.wantErr) {
				t.Fatalf("err = %v, want %s", err, tc.wantErr)
			}
		})
	}
	_, err := o.Find("button", "Salva")
	if !strings.Contains(err.Error(), "cur001:e2, cur001:e3") {
		t.Errorf("ambiguity message should list the candidates: %v", err)
	}
}

func TestSplitRef(t *testing.T) {
	tests := []struct {
		in, id, ref string
		err         Code
	}{
		{"s3f9k2:e8", "s3f9k2", "e8", ""},
		{"s3f9k2:f1e2", "s3f9k2", "f1e2", ""},
		{"e8", "", "", ErrBareRef},
		{"s3f9k2:e-8", "", "", ErrMalformedRef},
		{"s3 f9:e8", "", "", ErrMalformedRef},
	}
	for _, tc := range tests {
		id, ref, err := SplitRef(tc.in)
		if tc.err != "" {
			if !errors.Is(err, tc.err) {
				t.Errorf("SplitRef(%q) err = %v, want %s", tc.in, err, tc.err)
			}
			continue
		}
		if err != nil || id != tc.id || ref != tc.ref {
			t.Errorf("SplitRef(%q) = %q, %q, %v", tc.in, id, ref, err)
		}
	}
}

func TestErrorFormat(t *testing.T) {
	err := error(&Error{Code: ErrStaleRef, Ref: "old:e1", Msg: "observe again"})
	if got, want := err.Error(), "observe: STALE_REF old:e1: observe again"; got != want {
		t.Errorf("Error() = %q, want %q", got, want)
	}
	var c Code
	if !errors.As(err, &c) || c != ErrStaleRef {
		t.Errorf("errors.As to Code = %q", c)
	}
}
