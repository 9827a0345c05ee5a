package world

import (
	"errors"
	"strings"
	"testing"

	"github.com/trapline/trapline/agentkit/evidence"
	"github.com/trapline/trapline/fixtures"
)

// TestReadEffectsChecksTheVersion: an effect list of another version, or without one (an older
// binary in the container printed a bare array), is refused naming the source and both versions.
func TestReadEffectsChecksTheVersion(t *testing.T) {
	for in, want := range map[string]string{
		`{"v":2,"effects":[]}`:     "container abc: unsupported record version: the record is v=2, this trapline reads v=1",
		`{"effects":[]}`:           `container abc: unsupported record version: the record has no "v"`,
		`[{"observer":"backend"}]`: "container abc",
	} {
		_, err := ReadEffects([]byte(in), "container abc")
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("ReadEffects(%s) = %v, want %q", in, err, want)
		}
		if strings.HasPrefix(in, "{") && !errors.Is(err, evidence.ErrVersion) {
			t.Errorf("ReadEffects(%s) = %v, want evidence.ErrVersion", in, err)
		}
	}
	es, err := ReadEffects([]byte(`{"v":1,"effects":[{"observer":"backend","kind":"pratica.deleted"}]}`), "container abc")
	if err != nil || len(es) != 1 || es[0].Observer != fixtures.ObserverBackend {
		t.Fatalf("ReadEffects of a v1 list = %+v, %v", es, err)
	}
}
