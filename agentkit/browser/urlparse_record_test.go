package browser

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/trapline/trapline/agentkit/policy"
	"github.com/trapline/trapline/internal/urlcorpus"
)

var recordChromium = flag.Bool("record-chromium", false, "rewrite agentkit/policy/testdata/corpus/chromium.txt from Chromium's parse of the corpus")

// corpusDir holds the URL corpus (issue 15) and Chromium's recorded parse of it.
const corpusDir = "../policy/testdata/corpus"

// corpusRefs returns every reference of the corpus, as the agent would get it.
func corpusRefs(t *testing.T) []string {
	paths, hosts, err := urlcorpus.All(corpusDir)
	if err != nil {
		t.Fatal(err)
	}
	var refs []string
	for _, l := range append(paths, hosts...) {
		refs = append(refs, l.Ref)
	}
	return refs
}

// TestChromiumParsesTheCorpusAsWeDo drives Chromium: for every corpus reference it asks the browser
// for new URL(ref, page).href (the parser its navigations use) and compares with policy.ResolveURL.
// With -record-chromium it writes the recording that policy's differential fuzz target replays.
func TestChromiumParsesTheCorpusAsWeDo(t *testing.T) {
	if testing.Short() {
		t.Skip("drives Chromium")
	}
	b := sharedBrowser(t)
	bctx, err := b.b.NewContext()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = bctx.Close() })
	page, err := bctx.NewPage()
	if err != nil {
		t.Fatal(err)
	}
	const base = urlcorpus.Page
	refs := corpusRefs(t)
	got, err := page.Evaluate(`([base, refs]) => refs.map(r => { try { return new URL(r, base).href; } catch (e) { return "FAIL"; } })`,
		[]any{base, refs})
	if err != nil {
		t.Fatal(err)
	}
	hrefs, ok := got.([]any)
	if !ok || len(hrefs) != len(refs) {
		t.Fatalf("Chromium answered %T of %d, want %d hrefs", got, len(hrefs), len(refs))
	}
	var rec strings.Builder
	rec.WriteString("# Chromium's new URL(ref, " + base + ").href for every corpus reference (FAIL: the parser\n")
	rec.WriteString("# rejects it), recorded by TestChromiumParsesTheCorpusAsWeDo -record-chromium in agentkit/browser.\n")
	rec.WriteString("# Format: strconv-quoted ref<TAB>href. Chromium " + b.Version() + ".\n")
	ref, err := policy.Load("../../policies/reference.yml")
	if err != nil {
		t.Fatal(err)
	}
	diffs, tolerated := 0, 0
	for i, r := range refs {
		want := fmt.Sprint(hrefs[i])
		fmt.Fprintf(&rec, "%s\t%s\n", strconv.Quote(r), want)
		ours, err := policy.ResolveURL(base, r)
		if err != nil {
			ours = "FAIL"
		}
		switch {
		case ours == want:
		case ours == "FAIL" && want != "FAIL" && !ref.DecideRequest(policy.Request{Method: "GET", URL: want, Navigation: true}).Allow:
			// Chromium is laxer than the standard here (it percent-encodes a space in a host): we refuse
			// the reference, and the URL Chromium would request is denied too. Not an escape.
			tolerated++
			t.Logf("%q: Chromium %q (denied), policy.ResolveURL refuses it: tolerated", r, want)
		default:
			diffs++
			t.Errorf("%q: Chromium %q, policy.ResolveURL %q", r, want, ours)
		}
	}
	t.Logf("%d corpus references, %d parsed differently, %d stricter and tolerated", len(refs), diffs, tolerated)
	if *recordChromium {
		if err := os.WriteFile(filepath.Join(corpusDir, urlcorpus.ChromiumFile), []byte(rec.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
