package observe

import (
	"flag"
	"os"
	"path/filepath"
	"testing"
)

var update = flag.Bool("update", false, "rewrite testdata/*.golden from the current output")

// goldenCases are real snapshots captured with testdata/capture (Playwright
// 1.64, Chromium 156, AI mode). Each is parsed and dumped, then compacted.
var goldenCases = []struct {
	name    string
	pageURL string
}{
	{"kitchen", "https://staging.test/pratiche/elenco?page=1"},
	{"kitchen_renamed", "https://staging.test/pratiche/elenco?page=1"},
	{"unicode", "https://staging.test/u/"},
	{"empty", "https://staging.test/empty"},
}

func TestGolden(t *testing.T) {
	for _, tc := range goldenCases {
		t.Run(tc.name, func(t *testing.T) {
			raw := readTestdata(t, tc.name+".txt")
			o, err := Parse("s3f9k2", tc.pageURL, raw)
			if err != nil {
				t.Fatalf("Parse: %v", err)
			}
			if !o.Complete {
				t.Errorf("real snapshot parsed as incomplete: %v", o.Warnings)
			}
			c, err := o.Compact(CompactOptions{IncludeText: true})
			if err != nil {
				t.Fatalf("Compact: %v", err)
			}
			checkGolden(t, tc.name+".parsed.golden", dump(o))
			checkGolden(t, tc.name+".compact.golden", c.Text)
		})
	}
}

func readTestdata(tb testing.TB, name string) string {
	tb.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		tb.Fatal(err)
	}
	return string(b)
}

// checkGolden compares got with testdata/name, or rewrites the file when
// the test runs with -update.
func checkGolden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if got != string(want) {
		t.Errorf("%s differs from the golden file (go test -update to accept):\n--- got\n%s\n--- want\n%s", name, got, want)
	}
}
