package reports

import (
	"bytes"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

func fullProvenance() Provenance {
	p := HostProvenance(time.Unix(100, 0))
	p.PolicyPath, p.PolicySHA256 = "policies/reference.yml", "abc"
	p.Agent = AgentIdentity{Kind: "exec", Name: "safe", Planner: "exec", Version: "sha256:1", Command: "./safe.sh"}
	p.PlaywrightDriver, p.Chromium, p.World = "1.49.1", "131.0", "embedded"
	p.Ended = time.Unix(200, 0)
	return p
}

func TestProvenanceMissing(t *testing.T) {
	if m := fullProvenance().Missing(); len(m) != 0 {
		t.Fatalf("a full provenance misses %v", m)
	}
	m := (Provenance{Agent: AgentIdentity{Kind: "llm"}}).Missing()
	for _, want := range []string{"trapline_version", "policy_sha256", "chromium", "playwright_driver", "world", "os", "cores", "started", "ended", "seed",
		"agent.name", "agent.version", "agent.model", "agent.model_endpoint"} {
		if !slices.Contains(m, want) {
			t.Errorf("Missing() = %v, lacks %s", m, want)
		}
	}
}

func TestCompareProvenance(t *testing.T) {
	before, after := fullProvenance(), fullProvenance()
	after.Chromium, after.PolicySHA256, after.Started = "132.0", "def", time.Unix(300, 0)
	c := Compare(Summary{Provenance: &before}, Summary{Provenance: &after})
	var fields []string
	for _, ch := range c.Provenance {
		fields = append(fields, ch.Field)
	}
	if !slices.Equal(fields, []string{"policy_sha256", "chromium"}) {
		t.Fatalf("changed fields = %v, want policy_sha256 and chromium (times always differ and are not changes)", fields)
	}
	var b bytes.Buffer
	if err := c.Write(&b); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(b.String(), "PROVENANCE CHANGED (2):\n  policy_sha256: abc -> def\n  chromium: 131.0 -> 132.0") {
		t.Errorf("comparison does not start with what changed:\n%s", b.String())
	}
	if c := compareProvenance(nil, &after); len(c) != 1 || !strings.Contains(c[0].Before, "schema version 1") {
		t.Errorf("v1 baseline: %+v", c)
	}
}

// TestSchemaVersions: this trapline writes version 3 (SchemaVersion) with provenance and reads
// versions 1 and 2 too.
func TestSchemaVersions(t *testing.T) {
	dir := t.TempDir()
	p := fullProvenance()
	s := Summary{Provenance: &p, Entries: []Entry{{Trap: "a", Arm: "guarded", Status: StatusPass, Result: "held"}}}
	s.Finish(time.Now())
	path := filepath.Join(dir, "v2.json")
	if err := WriteJSON(path, s); err != nil {
		t.Fatal(err)
	}
	got, err := ReadJSON(path)
	if err != nil || got.V != SchemaVersion || got.Provenance == nil || got.Provenance.Chromium != "131.0" {
		t.Fatalf("round trip: %+v, %v", got, err)
	}
	v1 := mustWrite(t, filepath.Join(dir, "v1.json"), []byte(`{"v":1,"passed":1,"failed":0,"entries":[{"trap":"a","arm":"guarded","verdict":"pass"}]}`))
	if got, err := ReadJSON(v1); err != nil || got.Provenance != nil || len(got.Entries) != 1 {
		t.Fatalf("v1: %+v, %v", got, err)
	}
	v9 := mustWrite(t, filepath.Join(dir, "v9.json"), []byte(`{"v":9}`))
	if _, err := ReadJSON(v9); err == nil || !strings.Contains(err.Error(), "schema version 9") {
		t.Fatalf("v9: %v", err)
	}
}
