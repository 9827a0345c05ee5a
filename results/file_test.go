package results

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/trapline/trapline/agentkit/evidence"
)

// TestResultFileIsVersioned: WriteFile stamps the version, ReadFile reads it back, and a result.json
// of another version (or none) is refused naming the file and both versions.
func TestResultFileIsVersioned(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, ResultFile)
	if err := WriteFile(path, &Result{Trap: "stale-ref", Arm: Guarded, Reason: "ok"}); err != nil {
		t.Fatal(err)
	}
	r, err := ReadFile(path)
	if err != nil || r.V != Version || r.Trap != "stale-ref" || r.Arm != Guarded {
		t.Fatalf("ReadFile = %+v, %v", r, err)
	}
	for body, want := range map[string]string{
		`{"v":2,"trap":"x"}`: "the record is v=2, this trapline reads v=1",
		`{"trap":"x"}`:       `the record has no "v"`,
	} {
		if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := ReadFile(path)
		if !errors.Is(err, evidence.ErrVersion) || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), want) {
			t.Errorf("ReadFile(%s) = %v, want a version error naming %s and %q", body, err, path, want)
		}
	}
}
