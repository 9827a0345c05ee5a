package policy

import "testing"

func BenchmarkDecide(b *testing.B) {
	p := mustLoad(b, "reference.yml")
	in := Input{
		Kind:   KindClick,
		Target: &Target{Role: "button", Name: "Salva"},
		Page:   "http://portale.interno.test/pratiche/7",
		Usage:  Usage{Actions: 10, Navigations: 3},
	}
	b.ReportAllocs()
	for b.Loop() {
		if d := p.Decide(in); !d.Allow {
			b.Fatalf("denied: %+v", d)
		}
	}
}

func BenchmarkDecideRequest(b *testing.B) {
	p := mustLoad(b, "reference.yml")
	r := Request{Method: "POST", URL: "http://portale.interno.test/pratiche/7/stato"}
	b.ReportAllocs()
	for b.Loop() {
		if d := p.DecideRequest(r); !d.Allow {
			b.Fatalf("denied: %+v", d)
		}
	}
}
