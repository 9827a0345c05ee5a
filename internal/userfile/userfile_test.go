package userfile

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"
)

func TestReadFileChecksTheSizeFirst(t *testing.T) {
	p := filepath.Join(t.TempDir(), "f")
	if err := os.WriteFile(p, []byte("12345"), 0o600); err != nil {
		t.Fatal(err)
	}
	if b, err := ReadFile("policy", p, 5); err != nil || string(b) != "12345" {
		t.Fatalf("at the limit: %q %v", b, err)
	}
	_, err := ReadFile("policy", p, 4)
	var tl *TooLargeError
	if !errors.As(err, &tl) || !errors.Is(err, ErrTooLarge) || err.Error() != "policy "+p+": 5 bytes, over the limit of 4 bytes (4 B)" {
		t.Fatalf("over the limit: %v", err)
	}
	if _, err := ReadFile("policy", filepath.Dir(p), 4); err == nil {
		t.Fatal("a folder was read")
	}
}

// TestReadOfAStreamStopsAtTheLimit: a stream (or a file whose size lies) is read to limit+1 bytes
// only.
func TestReadOfAStreamStopsAtTheLimit(t *testing.T) {
	_, err := Read(strings.NewReader(strings.Repeat("x", 100)), "reply", "stdin", 10)
	if !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), "more than 10 bytes") {
		t.Fatalf("err = %v", err)
	}
	fsys := fstest.MapFS{"a.yml": {Data: []byte("abc")}}
	if _, err := ReadFS(fsys, "a.yml", "trap file", "pack/a.yml", 2); !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), "pack/a.yml: 3 bytes") {
		t.Fatalf("ReadFS: %v", err)
	}
}

func TestDocumentIsStrict(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"", "f.yml: the file is empty"},
		{"a: 1\n---\nb: 2\n", "f.yml:2:1: more than one YAML document; the file is one document"},
		{"a: [\n", "f.yml:1: did not find expected node content"},
	} {
		_, err := Document("f.yml", []byte(c.in))
		if err == nil || err.Error() != c.want {
			t.Errorf("Document(%q) = %v, want %q", c.in, err, c.want)
		}
	}
}
