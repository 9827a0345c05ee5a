package policy_test

import (
	"path/filepath"
	"testing"

	"github.com/trapline/trapline/agentkit/policy"
	"github.com/trapline/trapline/internal/urlcorpus"
)

// FuzzURLDifferential compares Go's side of URL parsing with Chromium's. On the recorded corpus
// references it must give Chromium's exact href (or refuse a reference whose Chromium URL the policy
// denies anyway); on every input the three layers must agree (Decide on the reference, DecideRequest
// on the URL it resolves to, as the route gate and the proxy see it), the resolution must be a fixed
// point, and an allowed URL's host must be one the policy lists.
//
//	go test -run '^$' -fuzz FuzzURLDifferential -fuzztime 10m ./agentkit/policy/
func FuzzURLDifferential(f *testing.F) {
	ref, err := policy.Load("../../policies/reference.yml")
	if err != nil {
		f.Fatal(err)
	}
	// Chromium's own parse of every corpus reference against corpusPage, recorded by agentkit/browser's
	// TestChromiumParsesTheCorpusAsWeDo.
	shapes, err := urlcorpus.Chromium(filepath.Join("testdata", "corpus"))
	if err != nil {
		f.Fatal(err)
	}
	for r := range shapes {
		f.Add(r)
	}
	f.Fuzz(func(t *testing.T, r string) {
		abs, err := policy.ResolveURL(corpusPage, r)
		if want, recorded := shapes[r]; recorded {
			got := abs
			if err != nil {
				got = "FAIL"
			}
			if got != want {
				if got != "FAIL" || ref.DecideRequest(policy.Request{Method: "GET", URL: want, Navigation: true}).Allow {
					t.Fatalf("%q: Go %q, Chromium %q", r, got, want)
				}
			}
		}
		if r == "" {
			return // a goto with no URL is a malformed proposal for Decide, the current page for the browser
		}
		d := ref.Decide(policy.Input{Kind: policy.KindGoto, URL: r, Page: corpusPage})
		if err != nil {
			if d.Allow {
				t.Fatalf("%q does not resolve (%v) but Decide allows it", r, err)
			}
			return
		}
		again, err := policy.ResolveURL(corpusPage, abs)
		if err != nil || again != abs {
			t.Fatalf("%q resolves to %q, which resolves to %q (%v)", r, abs, again, err)
		}
		g := ref.DecideRequest(policy.Request{Method: "GET", URL: abs, Navigation: true})
		if g.Rule != d.Rule {
			t.Fatalf("%q: Decide %s, DecideRequest(%q) %s", r, d.Rule, abs, g.Rule)
		}
		if g.Allow {
			u, err := policy.ParseURL(abs)
			if err != nil || (u.Scheme != "about" && u.Host != "portale.interno.test") {
				t.Fatalf("%q allowed, but %q goes to host %q (%v)", r, abs, u.Host, err)
			}
		}
	})
}
