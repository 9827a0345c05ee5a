package observe

import "testing"

func TestNewSnapshotID(t *testing.T) {
	seen := make(map[string]bool)
	for range 200 {
		id := NewSnapshotID()
		if len(id) != 6 {
			t.Fatalf("len(%q) = %d", id, len(id))
		}
		for _, c := range id {
			if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9') {
				t.Fatalf("id %q has %q", id, c)
			}
		}
		if !validSnapshotID(id) {
			t.Fatalf("Parse would reject %q", id)
		}
		if seen[id] {
			t.Fatalf("duplicate id %q after %d draws", id, len(seen))
		}
		seen[id] = true
	}
}

func TestFrameOf(t *testing.T) {
	tests := map[string]string{"e8": "", "f1e2": "f1", "f12e345": "f12", "fe2": "", "f1": "", "f1x2": "", "": ""}
	for in, want := range tests {
		if got := frameOf(in); got != want {
			t.Errorf("frameOf(%q) = %q, want %q", in, got, want)
		}
	}
}
