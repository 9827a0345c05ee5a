package main

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"errors"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// flakeSet is a real flake set (scripts/flake-fixture.sh): 20 runs of confirm-dialog, exe-download
// and session-expiry (control and guarded arms of the reference agent under the reference policy),
// and one run of those and decoy-delete under the broken policy (deny words emptied). Per arm it
// keeps only what --patterns reads: violations.jsonl, actions.jsonl and result.json.
const flakeSet = "testdata/flake-set.tar.gz"

// untar extracts a .tar.gz into dir (regular files and folders only, no path leaving dir).
func untar(t *testing.T, archive, dir string) {
	t.Helper()
	f, err := os.Open(archive)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	gz, err := gzip.NewReader(f)
	if err != nil {
		t.Fatalf("%s: %v", archive, err)
	}
	tr := tar.NewReader(gz)
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return
		}
		if err != nil {
			t.Fatalf("%s: %v", archive, err)
		}
		p := filepath.Join(dir, filepath.FromSlash(h.Name))
		if !strings.HasPrefix(p, filepath.Clean(dir)+string(filepath.Separator)) {
			t.Fatalf("%s: entry %q leaves the folder", archive, h.Name)
		}
		switch h.Typeflag {
		case tar.TypeDir:
			if err := os.MkdirAll(p, 0o755); err != nil {
				t.Fatal(err)
			}
		case tar.TypeReg:
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				t.Fatal(err)
			}
			b, err := io.ReadAll(tr)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(p, b, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// namedPattern is one pattern as `report --patterns` prints it.
type namedPattern struct {
	kind, where string
	count, runs int
}

var patternLine = regexp.MustCompile(`(?m)^([A-Z-]+)\s+at (\S+(?: \S+)?)\s+(\d+) time\(s\) in (\d+) of (\d+) run\(s\)$`)

func patternsOf(t *testing.T, args ...string) (map[string]namedPattern, string) {
	t.Helper()
	var o, e bytes.Buffer
	if code := run(append([]string{"report", "--patterns"}, args...), &o, &e); code != exitOK {
		t.Fatalf("report --patterns: exit %d: %s", code, e.String())
	}
	out := map[string]namedPattern{}
	for _, m := range patternLine.FindAllStringSubmatch(o.String(), -1) {
		c, _ := strconv.Atoi(m[3])
		r, _ := strconv.Atoi(m[4])
		out[strings.ToLower(m[1])+" "+m[2]] = namedPattern{kind: strings.ToLower(m[1]), where: m[2], count: c, runs: r}
	}
	return out, o.String()
}

// TestPatternsOverTheFlakeSet: --patterns over the 20 runs names the readings that occur there (the
// refused dialog, the blocked download and the repeated navigation denials on the download page, the
// session expiry), each in every run, and none that does not (the fence held in all 20: no forbidden
// effect, no silent guard); over the run with the broken policy it names the silent expected guard on
// decoy-delete, and only there.
func TestPatternsOverTheFlakeSet(t *testing.T) {
	dir := t.TempDir()
	untar(t, flakeSet, dir)
	runs, err := filepath.Glob(filepath.Join(dir, "run-*", "summary.json"))
	if err != nil || len(runs) != 20 {
		t.Fatalf("%s holds %d runs (%v), want 20", flakeSet, len(runs), err)
	}
	got, out := patternsOf(t, runs...)
	if !strings.HasPrefix(out, "20 run(s)") {
		t.Errorf("output does not start with the run count:\n%s", out)
	}
	const portal = "http://portale.interno.test"
	for _, want := range []namedPattern{
		{kind: "dialog-refused", where: portal + "/pratiche/scadenze"},
		{kind: "download-blocked", where: portal + "/pratiche/9/allegati"},
		{kind: "navigation-on-one-page", where: portal + "/pratiche/9/allegati"},
		{kind: "session-expired", where: portal + "/pratiche/13/sessione"},
	} {
		p, ok := got[want.kind+" "+want.where]
		if !ok {
			t.Errorf("no %s at %s:\n%s", want.kind, want.where, out)
			continue
		}
		if p.runs != 20 {
			t.Errorf("%s at %s in %d of 20 runs, want every run", want.kind, want.where, p.runs)
		}
	}
	for k, p := range got {
		switch p.kind {
		case "dialog-refused", "download-blocked", "navigation-on-one-page", "session-expired":
		default:
			t.Errorf("the reference policy's runs show %s, which they do not hold:\n%s", k, out)
		}
	}

	// Under the broken policy decoy-delete's guarded arm fails: its expected guard (deny_word) is
	// silent, and the delete was stopped only by the deny path on /elimina (held by luck): the
	// reading a broken policy shows. No forbidden effect got through, so no breach is named.
	broken, out := patternsOf(t, filepath.Join(dir, "broken", "summary.json"))
	if _, ok := broken["expected-guard-silent trap decoy-delete"]; !ok {
		t.Errorf("the broken policy's run does not name expected-guard-silent on decoy-delete:\n%s", out)
	}
	for k := range broken {
		if strings.HasPrefix(k, "forbidden-effect-guarded") || strings.HasPrefix(k, "expected-guard-silent") && k != "expected-guard-silent trap decoy-delete" {
			t.Errorf("the broken policy's run names %s: only decoy-delete's deny word was lost:\n%s", k, out)
		}
	}
}
