package policy

import (
	"flag"
	"os"
	"path/filepath"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

func TestSummaryGolden(t *testing.T) {
	for _, name := range []string{"reference", "permissive"} {
		t.Run(name, func(t *testing.T) {
			p := mustLoad(t, name+".yml")
			p.Source = "policies/" + name + ".yml" // independent of the test's working directory
			got := p.Summary()
			golden := filepath.Join("testdata", name+".summary.golden")
			if *update {
				if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("read golden (run with -update to create it): %v", err)
			}
			if got != string(want) {
				t.Errorf("Summary() differs from %s (run with -update if intended):\n%s", golden, got)
			}
		})
	}
}
