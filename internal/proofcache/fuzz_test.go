package proofcache

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// FuzzProofRecord: whatever a proof.json holds (a torn write, an edit, another version), Load never
// panics, and reuses a proof only when its record names the key and the inputs asked for.
func FuzzProofRecord(f *testing.F) {
	now := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	in := sampleInputs()
	key, err := in.Key()
	if err != nil {
		f.Fatal(err)
	}
	s := Store{Dir: f.TempDir(), Now: func() time.Time { return now }}
	f.Add([]byte(`{"v":1}`))
	f.Add([]byte(`{"v":1,"key":"` + key + `","inputs":{},"run":"r","made":"2026-12-01T09:00:00Z","arms":[]}`))
	f.Add([]byte("{\"v\":1,\"key\":\"" + key + "\",\"arms\":[{\"trap\":\"x\",\"arm\":\"control\",\"verdict\":\"pass\"}]} trailing"))
	f.Fuzz(func(t *testing.T, record []byte) {
		dir := s.dir(in, key)
		if err := os.MkdirAll(dir, 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, proofFile), record, 0o600); err != nil {
			t.Fatal(err)
		}
		p, err := s.Load(in)
		if err == nil && (p.Key != key || len(p.Inputs.Changed(in)) > 0 || len(p.Arms) != len(in.Arms)) {
			t.Fatalf("reused a record that does not match its key: %+v", p)
		}
	})
}
